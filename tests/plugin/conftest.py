"""Shared set-up of the plugin tests.

Several of these tests run a project in this process (`pytester.runpytest()`), and each
such run removes the modules it imported from `sys.modules` afterwards (see the root
conftest). spaCy imports thinc, and thinc imports torch when it is installed; torch's C
extension cannot be initialised twice in one process: a second in-process run that parses
(after `test_spacy_model_option_reaches_every_parse`, say) fails with "bad call flags" or
crashes the interpreter. Importing spaCy here, before any in-process run, keeps it and
what it loads out of the runs' snapshots.
"""

import importlib.util

if importlib.util.find_spec("spacy") is not None:
    import spacy  # noqa: F401
