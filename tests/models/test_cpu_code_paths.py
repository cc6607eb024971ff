"""A run is bit-identical alone and in any stack on every CPU code path this machine offers (issue 43).

MKL picks its kernels by CPU (``MKL_CBWR``) and by operand shape, and torch its vector width by CPU
(``ATEN_CPU_CAPABILITY``). A promise checked only on the developer's default path broke on a CI machine with
AVX-512, so the identity cases of test_batched_training.py run again here in a fresh process per path, each path
standing for a kind of CPU. A path the CPU (or this MKL) does not offer is skipped, saying which path MKL would
have run instead. The last test shows the check's power: a product whose rounding depends on the stack's width
must be caught on every path.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

CASES = Path(__file__).with_name("test_batched_training.py")

#: Each a kind of CPU: (name, MKL_CBWR, ATEN_CPU_CAPABILITY). The machine's own default path is the main suite's.
PATHS = [("generic x86-64", "COMPATIBLE", "default"), ("SSE4.2", "SSE4_2", "default"), ("AVX2", "AVX2", "avx2"),
         ("AVX-512", "AVX512", "avx512"), ("AVX-512 VNNI", "AVX512_E1", "avx512")]
#: The power run: a width-dependent product on the machine's own path.
POWER = ("power", None, None)

CHECK = r"""
import importlib.util, json, sys
import torch
torch.set_num_threads(1)
from ldp_audit.models.training import runtime, stacked, tensors, train_batch, train_run

spec = importlib.util.spec_from_file_location("cases", sys.argv[1])
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
if sys.argv[2] == "width-dependent":  # power: one product over the runs side by side, rounded in float64 when
    def mutant(matrix, stacked_input):  # it holds several runs (as a kernel chosen by width sums in another order)
        runs, k, w = stacked_input.shape
        wide = stacked_input.permute(1, 0, 2).reshape(k, runs * w)
        if runs > 1:
            matrix, wide = matrix.to(torch.float64), wide.to(torch.float64)
        multiply = torch.mm if matrix.layout == torch.strided else torch.sparse.mm
        out = multiply(matrix, wide).to(torch.float32)
        return out.reshape(-1, runs, w).permute(1, 0, 2).contiguous()
    tensors.left_product = stacked.left_product = mutant
differ = []
for name, mates in cases.MATES.items():
    configs = [cases._config(**changes) for changes in mates]
    alone = [train_run(c, "cpu", cases._cache()) for c in configs]
    together = train_batch(configs[::-1], "cpu", cases._cache())[::-1]  # every run at another place than alone
    if not all(cases._same(a, t) for a, t in zip(alone, together)):
        differ.append(name)
print(json.dumps({"path": runtime.cpu_code_path(), "differ": differ}))
"""


def _run(name: str, mkl: str | None, aten: str | None) -> dict:
    mutant = "width-dependent" if name == POWER[0] else "none"
    env = {k: v for k, v in os.environ.items() if k not in ("MKL_CBWR", "ATEN_CPU_CAPABILITY")}
    env.update({"OMP_NUM_THREADS": "1", **({"MKL_CBWR": mkl} if mkl else {}),
                **({"ATEN_CPU_CAPABILITY": aten} if aten else {})})
    done = subprocess.run([sys.executable, "-c", CHECK, str(CASES), mutant], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _skip_unless_offered(path: dict, mkl: str | None, aten: str | None) -> None:
    if path["mkl"] is None:
        pytest.skip("this torch carries no MKL (or hides its code-path call): nothing to switch")
    if mkl and path["mkl"] != mkl:
        pytest.skip(f"MKL_CBWR={mkl}: this CPU or MKL offers no such path (MKL ran {path['mkl']} instead)")
    if aten and path["aten"].lower() != aten:
        pytest.skip(f"ATEN_CPU_CAPABILITY={aten}: this CPU offers no such path (torch ran {path['aten']})")


@pytest.fixture(scope="module")
def outcomes() -> dict:
    """Every path's check, in parallel processes (one torch thread each)."""
    with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(zip([p[0] for p in PATHS + [POWER]], pool.map(lambda p: _run(*p), PATHS + [POWER])))


@pytest.mark.parametrize("name, mkl, aten", PATHS, ids=[p[0] for p in PATHS])
def test_every_run_is_bit_identical_alone_and_in_any_stack_on_this_code_path(outcomes, name, mkl, aten):
    outcome = outcomes[name]
    _skip_unless_offered(outcome["path"], mkl, aten)
    assert outcome["differ"] == [], f"{name}: runs depend on their stack in {outcome['differ']}"


def test_a_product_whose_rounding_depends_on_the_stack_is_caught(outcomes):
    """Power: with the products of a stack rounded another way than a lone run's (float64, as a kernel chosen by
    width would sum in another order), the check above fails for each backbone."""
    assert {"lpgnn", "sage", "sage-odd", "gcn-odd"} <= set(outcomes[POWER[0]]["differ"]), outcomes[POWER[0]]
