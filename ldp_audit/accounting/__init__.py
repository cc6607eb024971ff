"""Privacy accounting as mechanism-side mathematics: RDP of the (subsampled) Gaussian, conversions to
(eps, delta), and a thin accountant. Models receive an :class:`RdpAccountant` as a value; the cross-check of
the sources against each other is an audit (:mod:`ldp_audit.audits.privacy.accountants`)."""
from .accountant import RdpAccountant
from .conversion import CONVERSIONS, eps_at_orders, eps_from_rdp, epsilon_curve
from .rdp import (SAMPLINGS, SOURCES, default_orders, eps_pld, pld_memory, rdp_dp_accounting, rdp_numeric_pair,
                  rdp_numeric_poisson, rdp_opacus, renyi_divergence_mixtures, validate)

__all__ = ["RdpAccountant", "CONVERSIONS", "eps_at_orders", "eps_from_rdp", "epsilon_curve", "SAMPLINGS", "SOURCES",
           "default_orders", "eps_pld", "pld_memory", "rdp_dp_accounting", "rdp_numeric_pair", "rdp_numeric_poisson",
           "rdp_opacus", "renyi_divergence_mixtures", "validate"]
