"""Protocol elements as data (issue 26): each released element changes what it claims to change, and the presets
round-trip. CPU only, no dataset."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch

from ldp_audit.models.training import RunConfig
from ldp_audit.models.training.protocols import PROTOCOLS, Element, Protocol, one_at_a_time, protocol
from ldp_audit.models.training.stages import (AllImprove, Batch, CappedValidation, CrossEntropy,
                                              LowestValidationLoss, SaturatingLikelihood)


def _batch(labels):
    labels = torch.tensor(labels)
    nodes = torch.arange(labels.numel())
    return Batch(labels=labels, clean=labels, train=nodes, val=nodes, test=nodes, transition=torch.eye(2))


def _gradient(objective, logits):
    logits = torch.tensor(logits, dtype=torch.float32, requires_grad=True)
    objective.loss(logits, _batch([1] * len(logits))).sum().backward()
    return logits.grad


def test_the_saturating_loss_has_zero_gradient_on_a_saturated_wrong_prediction():
    wrong = [[200.0, -200.0]]  # softmax of the true class 1 underflows to 0 in float32
    assert torch.all(_gradient(SaturatingLikelihood(), wrong) == 0)
    assert torch.all(_gradient(CrossEntropy(), wrong).abs() > 0.5)  # log-softmax still pushes it
    moderate = [[1.0, -1.0]]  # away from saturation both losses are the same function
    assert torch.allclose(_gradient(SaturatingLikelihood(), moderate), _gradient(CrossEntropy(), moderate))


#: A scripted validation curve: (val_loss, val_acc, train_acc) per epoch.
CURVE = [(1.00, 0.50, 0.50), (0.90, 0.55, 0.55), (0.80, 0.54, 0.60), (0.70, 0.60, 0.58), (0.60, 0.62, 0.65),
         (0.65, 0.70, 0.70)]


def _kept(rule) -> int:
    best, kept = None, 0
    for epoch, (loss, val_acc, train_acc) in enumerate(CURVE):
        values = {"val_loss": loss, "val_acc": val_acc, "train_acc": train_acc}
        if best is None or rule.better(values, best):
            best, kept = values, epoch
    return kept


def test_the_all_improve_rule_keeps_the_epoch_where_all_three_improve():
    identity = torch.eye(2).numpy()
    assert _kept(AllImprove(identity)) == 4  # epoch 2 lowers val accuracy, 5 raises the loss: neither is kept
    assert _kept(LowestValidationLoss(identity)) == 4
    assert _kept(CappedValidation(torch.tensor([[0.6, 0.4], [0.4, 0.6]]).numpy())) == 3  # A5 caps val acc at 0.6


def test_all_improve_differs_from_the_lowest_validation_loss_on_a_curve_where_accuracy_stalls():
    identity = torch.eye(2).numpy()
    stalled = [(1.0, 0.5, 0.5), (0.9, 0.6, 0.6), (0.5, 0.6, 0.7)]
    rules = {}
    for name, rule in (("all", AllImprove(identity)), ("loss", LowestValidationLoss(identity))):
        best, kept = None, 0
        for epoch, (loss, val_acc, train_acc) in enumerate(stalled):
            values = {"val_loss": loss, "val_acc": val_acc, "train_acc": train_acc}
            if best is None or rule.better(values, best):
                best, kept = values, epoch
        rules[name] = kept
    assert rules == {"all": 1, "loss": 2}


def test_presets_round_trip_through_json_and_apply_to_a_config():
    for preset in PROTOCOLS.values():
        assert Protocol.from_dict(json.loads(json.dumps(preset.to_dict()))) == preset
    spec = RunConfig("cora", mechanism="multibit", eps_x=1.0, m="lpgnn", k_x=4, model="gcn", seed=3)
    released = protocol("ppgnn", "released").apply(spec)
    assert (released.model, released.objective, released.selection, released.dropout) == \
        ("sage", "saturating", "all_improve", 0.75)
    assert RunConfig.from_dict(released.to_dict()) == released
    assert protocol("ppgnn", "spec").apply(spec) == spec
    # PPGNN's own code, or LPGNN's for the baselines the released PPGNN code cannot run (issue 26)
    assert all(e.source.startswith(("helongzhu/ID100@", "sisaman/LPGNN@"))
               for e in protocol("ppgnn", "released").elements)


def test_one_at_a_time_switches_exactly_one_element_back_to_the_spec():
    spec = RunConfig("cora", mechanism="multibit", eps_x=1.0, m="lpgnn", k_x=4, model="gcn", lr=0.01,
                     weight_decay=0.001, dropout=0.5, seed=0)
    grid = one_at_a_time(spec, protocol("ppgnn", "released"))
    full = grid.pop("released")
    assert "lr -> spec" not in grid  # the same value in both protocols: nothing to attribute
    for name, config in grid.items():
        field = name.split(" -> ")[0]
        changed = {f for f in full.to_dict() if full.to_dict()[f] != config.to_dict()[f]}
        assert changed == {field} and getattr(config, field) == getattr(spec, field)
    assert set(grid) == {"model -> spec", "weight_decay -> spec", "dropout -> spec", "objective -> spec",
                         "selection -> spec"}


def test_one_at_a_time_skips_elements_that_do_not_act_on_the_run():
    """ppm_variant acts on PPM runs only: an MB cell gets no 'ppm_variant -> spec' row (it would repeat 'released')."""
    mb = RunConfig("cora", mechanism="multibit", eps_x=1.0, k_x=4, model="gcn", aggregator="mean", self_loops=True)
    ppm = replace(mb, mechanism="ppm", m="ppgnn", aggregator="gcn", self_loops=False)
    released = protocol("ppgnn", "released")
    mb_grid, ppm_grid = one_at_a_time(mb, released), one_at_a_time(ppm, released)
    assert "ppm_variant -> spec" not in mb_grid and "ppm_variant -> spec" in ppm_grid
    assert {"aggregator -> spec", "self_loops -> spec"} <= set(mb_grid)
    assert "aggregator -> spec" not in ppm_grid


def test_bad_protocol_names_and_fields_are_refused():
    with pytest.raises(ValueError, match="protocol must be one of .*ppgnn/released"):
        protocol("ppgnn", "authors")
    with pytest.raises(ValueError, match="field must be a RunConfig field"):
        Protocol("ppgnn", "released", (Element("learning_rate", 0.01, "x", "y"),))
    with pytest.raises(ValueError, match="field must be a LdpGeConfig field"):
        Protocol("ldp-ge", "released", (Element("objective", "saturating", "x", "y"),), pipeline="ldp-ge")
    with pytest.raises(ValueError, match="pipeline must be one of"):
        Protocol("ppgnn", "released", pipeline="tf")
    with pytest.raises(ValueError, match="objective must be one of"):
        replace(RunConfig("cora"), objective="softmax")
