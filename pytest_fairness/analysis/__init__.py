"""Analyses over a model that use perturbations and the metrics' formulas, before any
verdict: accumulated prediction sensitivity from a white-box model's gradients
(`gradients`), mitigation at prediction time (`mitigation`: certified smoothing,
averaging), and PSA's work on a shard of a corpus in a Ray worker (`shard_tasks`). They
sit after `models`, `perturb` and `metrics` and before `checks`.
"""
