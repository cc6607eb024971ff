"""``engines.open_engine``: the one set-up of an engine from (name, workers, scheduler) that verify, the sweeps and
``ldp_audit.testing`` share, and ``check_engine_options``, the one place of the options' rules."""
from __future__ import annotations

from contextlib import nullcontext

import pytest

from ldp_audit.audits.kernel import engines
from ldp_audit.audits.kernel.engines import (EngineError, LocalEngine, ProcessEngine, check_engine_options,
                                             engine_name, open_engine)


class _Spy(LocalEngine):
    def __init__(self):
        super().__init__()
        self.closed, self.required = [], []

    def close(self, abort=False):
        self.closed.append(abort)

    def require(self, obj):
        self.required.append(obj)


def test_a_callers_engine_is_used_and_left_open():
    mine = _Spy()
    with open_engine(mine, subject="mechanism") as running:
        assert running is mine
    assert mine.closed == [] and mine.required == ["mechanism"]


@pytest.mark.parametrize("failing", [False, True])
def test_an_engine_made_here_is_closed_at_once_when_the_block_fails(monkeypatch, failing):
    made = _Spy()
    monkeypatch.setattr(engines, "LocalEngine", lambda block=None: made)
    with pytest.raises(RuntimeError) if failing else nullcontext():
        with open_engine("local", subject="m") as running:
            assert running is made
            if failing:
                raise RuntimeError("stop")
    assert made.closed == [failing] and made.required == ["m"]


def test_a_name_left_out_picks_from_the_workers():
    with open_engine(None, workers=1) as one:
        assert isinstance(one, LocalEngine)
    with open_engine(None, workers=2, start_method="spawn") as pool:
        assert isinstance(pool, ProcessEngine) and pool.workers == 2


@pytest.mark.parametrize("args, words", [
    (("spark", 1, None), "engine must be one of local, processes, dask (or an Engine, or None), got 'spark'"),
    (("processes", 2, "tcp://h:1"), "--scheduler needs --engine dask (got --engine processes)"),
    ((None, 1, "tcp://h:1"), "--scheduler needs --engine dask (got --engine left out)"),
])
def test_bad_options_are_refused_before_anything_starts(args, words):
    with pytest.raises(EngineError) as refused:
        check_engine_options(*args)
    assert str(refused.value) == words
    with pytest.raises(EngineError, match="must be one of|needs --engine dask"):
        with open_engine(*args):
            pass


def test_local_with_workers_is_refused_only_when_asked_for():
    check_engine_options("local", 4)  # the API's default workers, not the user's words
    with pytest.raises(EngineError, match="--workers 4 needs --engine processes or dask"):
        check_engine_options("local", 4, workers_given=True)
    check_engine_options("processes", 4, workers_given=True)


def test_a_name_left_out_is_processes_for_several_workers_else_local():
    assert engine_name(None, 1) == "local" and engine_name(None, 3) == "processes"
    assert engine_name("dask", 1) == "dask" and engine_name("local", 4) == "local"
