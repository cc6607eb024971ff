"""Frequency oracles over k categories (Wang et al., USENIX Security 2017, and the protocols it compares):
unary encoding (SUE, OUE), histogram encoding (SHE, THE), local hashing (OLH, BLH), Hadamard response, subset
selection and RAPPOR with cohorts. Each has a vectorised client, its exact whole-report law (``report_loglik``,
``law_classes``), the unbiased server estimator and its variance formula."""
from .base import FrequencyOracle
from .hadamard import HadamardResponse
from .hashing import BinaryLocalHashing, OptimisedLocalHashing
from .rappor import Rappor
from .subset import SubsetSelection
from .unary import (OptimisedUnaryEncoding, SummationHistogramEncoding, SymmetricUnaryEncoding,
                    ThresholdHistogramEncoding)

#: Every built-in frequency oracle, in the order of Wang et al. 2017 and then the others.
ORACLES = (SymmetricUnaryEncoding, OptimisedUnaryEncoding, SummationHistogramEncoding, ThresholdHistogramEncoding,
           OptimisedLocalHashing, BinaryLocalHashing, HadamardResponse, SubsetSelection, Rappor)

__all__ = ["FrequencyOracle", "ORACLES"] + [cls.__name__ for cls in ORACLES]
