"""Classifiers: what a user brings that scores or labels texts, adapted to a `TextModel`.

`adapt.as_model` finds the model's family (`family`, `families`) and builds its adapter:
plain callables (`callables`), remote scorers (`remote`), scikit-learn (`scikit`), torch
(`torchnn`), transformers pipelines and models (`hf`), Ray workers (`distributed`).
`base.ModelAdapter` is what they share (with `outputs`, the prediction caches in `cache`);
`thresholds` is the one threshold resolver and `scoring` scores texts for the relations.
"""
