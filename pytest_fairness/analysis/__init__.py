"""Analyses over a model that use perturbations and the metrics' formulas, before any
verdict: accumulated prediction sensitivity from a white-box model's gradients
(`gradients`) and mitigation at prediction time (`mitigation`: certified smoothing,
averaging). They sit after `models`, `perturb` and `metrics` and before `checks`.
"""
