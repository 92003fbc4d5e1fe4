"""White-box models: what a user brings with its internals open (embeddings, logits).

`base`: the `WhiteBoxModel` protocol (class probabilities differentiable w.r.t. the input
embeddings) and `as_white_box`; `protected`: the protected-status model of accumulated
prediction sensitivity; `likelihood`: language-model likelihoods (causal and masked LMs).
"""

from __future__ import annotations

from .base import WhiteBoxModel, as_white_box

__all__ = ["WhiteBoxModel", "as_white_box"]
