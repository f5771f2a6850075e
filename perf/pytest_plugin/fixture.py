"""The ``benchmark`` fixture: pytest-benchmark's API over perf's results.

A :class:`BenchmarkFixture` is made for each test that asks for it.  In
pytest's process, ``benchmark(fn)`` calls ``fn`` once for its result and
takes the numbers that the worker processes measured for this test
(:class:`Results`, which the session implements); ``benchmark.pedantic``
times the rounds the user fixed, here, as pytest-benchmark does.  In a
worker process the fixture measures instead, and ends the test there.

:class:`Stats` and :class:`BenchmarkStats` are ``benchmark.stats.stats``
and ``benchmark.stats``: pytest-benchmark's fields (seconds per call), and
perf's runs under ``benchmark.stats.perf``.

Must not: print, spawn processes, compute statistics (perf.analysis does).
"""

from __future__ import annotations

import json
import types
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Protocol, Sequence

from perf.model.metadata import COUNT_UNIT
from perf.pytest_plugin.measure import IN_WORKERS, MEASURED_IN, call_once, is_async, pedantic_benchmark, timing
from perf.pytest_plugin.options import Settings

if TYPE_CHECKING:  # the statistics are imported when a result is read (workers read none)
    from perf.analysis.intervals import Interval
    from perf.model.benchmark import Benchmark


def entry_unit(entry: dict[str, Any]) -> str:
    """The unit of the figures of a pytest-benchmark entry: ``instructions``
    (perf's counts) or ``seconds``."""
    fields = entry.get("perf")
    return str(fields.get("unit", "seconds")) if isinstance(fields, dict) else "seconds"


class FixtureAlreadyUsed(Exception):
    """A test called ``benchmark`` (or ``benchmark.pedantic``) twice."""


class BenchmarkFailed(Exception):
    """The benchmarked function failed in a worker process (its error tail
    is the message)."""


class Stats:
    """``benchmark.stats.stats``: pytest-benchmark's fields of the values
    (seconds per call), computed when first read."""

    def __init__(self, data: Sequence[float]) -> None:
        self.data = list(data)
        self._fields: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        if self._fields is None:
            from perf.analysis.round_stats import round_stats

            self._fields = round_stats(self.data)
        return dict(self._fields)

    def __getattr__(self, name: str) -> Any:
        from perf.analysis.round_stats import FIELDS

        if name in FIELDS:
            return self.as_dict()[name]
        raise AttributeError(name)


class BenchmarkStats:
    """``benchmark.stats``: a benchmark's identity, options, values and
    perf runs (pytest-benchmark's ``Metadata``)."""

    def __init__(self, fixture: BenchmarkFixture, benchmark: Benchmark, iterations: int) -> None:
        self.fixture = fixture
        self.name = fixture.name
        self.fullname = fixture.fullname
        self.group = fixture.group
        self.param = fixture.param
        self.params = fixture.params
        self.extra_info = fixture.extra_info  # the same dict: keys added later are kept
        self.options = fixture.settings.as_pytest_benchmark()
        self.iterations = iterations
        #: perf's runs of this test (a calibration run has no values)
        self.perf = benchmark
        #: "worker processes" or "pytest process", as the runs say
        self.measured_in: str = benchmark.get_runs()[-1].get_metadata().get(MEASURED_IN, IN_WORKERS)
        self.stats = Stats(benchmark.get_values())
        self.cprofile_stats = None
        #: the 95 % t interval of the mean of the process means (None
        #: below 2 processes): the table's and the files'
        from perf.analysis.intervals import benchmark_mean_interval

        self.interval: Interval | None = benchmark_mean_interval(benchmark)

    @property
    def has_error(self) -> bool:
        return self.fixture.has_error

    def payload(self) -> str:
        """This benchmark as JSON text, for a report of an xdist worker."""
        from perf.storage.files import dumps

        entry = self.as_dict(include_data=False, stats=False)
        entry.update(iterations=self.iterations, perf=dumps(self.perf))
        return json.dumps(entry, default=repr)

    @classmethod
    def from_payload(cls, text: str) -> BenchmarkStats:
        """The benchmark of an xdist worker's report (:meth:`payload`)."""
        from perf.storage.files import loads_benchmark

        entry = json.loads(text)
        reported = types.SimpleNamespace(
            has_error=False,
            settings=types.SimpleNamespace(as_pytest_benchmark=lambda: entry["options"]),
            **{key: entry[key] for key in ("name", "fullname", "group", "param", "params", "extra_info")},
        )
        return cls(reported, loads_benchmark(entry["perf"]), entry["iterations"])  # type: ignore[arg-type]

    @property
    def processes(self) -> int:
        """The processes whose values these are."""
        return sum(1 for run in self.perf.get_runs() if run.values)

    def __bool__(self) -> bool:
        return bool(self.stats.data)

    def __getitem__(self, key: str) -> Any:
        from perf.analysis.round_stats import FIELDS

        if key in FIELDS:
            return self.stats.as_dict()[key]
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    @property
    def counted(self) -> bool:
        """The values are instructions per call (``--perf-metric instructions``), not seconds."""
        return self.perf.get_counter_source() is not None  # the model's one test of counts

    def perf_fields(self) -> dict[str, Any]:
        """What perf adds to pytest-benchmark's entry: where the values were
        measured, by how many processes (counts: samples), :attr:`interval`,
        and for counts their unit."""
        interval = self.interval
        fields = {
            "measured_in": self.measured_in,
            "processes": self.processes,
            "mean_interval": None if interval is None else [interval.low, interval.high],
        }
        if self.counted:
            fields["unit"] = COUNT_UNIT
        return fields

    def as_dict(self, include_data: bool = True, flat: bool = False, stats: bool = True) -> dict[str, Any]:
        """The entry of pytest-benchmark's JSON document."""
        result: dict[str, Any] = {
            "group": self.group,
            "name": self.name,
            "fullname": self.fullname,
            "params": self.params,
            "param": self.param,
            "extra_info": self.extra_info,
            "options": self.options,
        }
        result["perf"] = self.perf_fields()
        if stats:
            fields = self.stats.as_dict()
            if include_data:
                fields["data"] = list(self.stats.data)
            fields["iterations"] = self.iterations
            if flat:
                result.update(fields)
            else:
                result["stats"] = fields
        return result


class Results(Protocol):
    """What the fixture needs from the session (perf.pytest_plugin.session)."""

    def measured(self, nodeid: str) -> Benchmark | str | None:
        """The workers' runs of *nodeid*, their error tail, or None."""

    def measure_here(
        self, fixture: BenchmarkFixture, fn: Callable[..., Any], args: Any, kwargs: Any
    ) -> Benchmark | None:
        """Measure in pytest's process (no worker measured this test); None
        when it cannot be measured there (counts)."""

    def add(self, stats: BenchmarkStats) -> None:
        """Keep a finished benchmark for the files and the summary."""


class BenchmarkFixture:
    """The object a test gets as ``benchmark``."""

    def __init__(
        self,
        node: Any,
        settings: Settings,
        results: Results,
        disabled: bool,
    ) -> None:
        self.name: str = node.name
        self.fullname: str = node.nodeid
        callspec = getattr(node, "callspec", None)
        self.param = callspec.id if callspec is not None else None
        self.params = dict(callspec.params) if callspec is not None else None
        self.settings = settings
        self.group = settings.group
        self.extra_info: dict[str, Any] = {}
        self.disabled = disabled
        #: pedantic rounds run in pytest's process: not beside xdist's other
        #: tests (they run once, unmeasured, as when disabled)
        self.pedantic_disabled = disabled
        #: the rounds of benchmark.pedantic are a result (not beside counts:
        #: they are times, and run without being kept)
        self.pedantic_kept = True
        self.skipped = False
        self.has_error = False
        self.stats: BenchmarkStats | None = None
        self.cprofile_stats = None
        self._results = results
        self._mode: str | None = None

    @property
    def enabled(self) -> bool:
        return not self.disabled

    @property
    def used(self) -> bool:
        """The test called ``benchmark(...)`` or ``benchmark.pedantic(...)``."""
        return self._mode is not None

    def _use(self, mode: str) -> None:
        if self._mode:
            self.has_error = True
            raise FixtureAlreadyUsed(f"Fixture can only be used once. Previously it was used in {self._mode} mode.")
        self._mode = mode

    def __call__(self, function_to_benchmark: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Return ``function_to_benchmark(*args, **kwargs)``; the numbers
        come from the worker processes."""
        __tracebackhide__ = True  # pytest shows the user's frames, not these
        self._use("benchmark(...)")
        try:
            result = call_once(function_to_benchmark, args, kwargs)
            if self.disabled:
                return result
            measured = self._results.measured(self.fullname)
            if isinstance(measured, str):
                raise BenchmarkFailed(measured)
            if measured is None:
                measured = self._results.measure_here(self, function_to_benchmark, args, kwargs)
                if measured is None:
                    return result
            self._finish(measured, int(measured.get_loops()))
            return result
        except BaseException:
            self.has_error = True
            raise

    def _finish(self, benchmark: Benchmark, iterations: int) -> None:
        self.stats = BenchmarkStats(self, benchmark, iterations)
        self._results.add(self.stats)

    def pedantic(  # noqa: PLR0917  (pytest-benchmark's signature)
        self,
        target: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        setup: Callable[[], Any] | None = None,
        teardown: Callable[..., Any] | None = None,
        rounds: int = 1,
        warmup_rounds: int = 0,
        iterations: int = 1,
    ) -> Any:
        """pytest-benchmark's pedantic mode: the rounds and iterations the
        test fixed, timed in pytest's process."""
        __tracebackhide__ = True
        self._use("benchmark.pedantic(...)")
        try:
            check_pedantic(rounds, warmup_rounds, iterations, setup)
            if is_async(target):
                asynchronous = target
                target = lambda *a, **k: call_once(asynchronous, a, k)  # noqa: E731
            plan = Pedantic(target, tuple(args), kwargs or {}, setup, teardown, rounds, warmup_rounds, iterations)
            return self._pedantic(plan)
        except BaseException:
            self.has_error = True
            raise

    def _pedantic(self, plan: Pedantic) -> Any:
        __tracebackhide__ = True
        if self.pedantic_disabled:
            args, kwargs = plan.arguments()
            return plan.target(*args, **kwargs)
        data = []
        result = None
        for index in range(plan.warmup_rounds + plan.rounds):
            args, kwargs = plan.arguments()
            duration, result = _timed_round(
                plan, args, kwargs, timer=self.settings.timer, disable_gc=self.settings.disable_gc
            )
            if index >= plan.warmup_rounds:
                data.append(duration / plan.iterations)
            plan.tear_down(args, kwargs)
        if plan.iterations > 1:
            args, kwargs = plan.arguments()
            result = plan.target(*args, **kwargs)
            plan.tear_down(args, kwargs)
        if not self.pedantic_kept:
            return result
        measured = pedantic_benchmark(self.fullname, data, plan.iterations, plan.warmup_rounds)
        self._finish(measured, plan.iterations)
        return result

    def weave(self, target: Any, **kwargs: Any) -> None:
        """pytest-benchmark's aspect weaving: not supported."""
        raise NotImplementedError("perf's benchmark fixture does not weave (benchmark.weave/patch): call benchmark(fn)")

    patch = weave


def check_pedantic(rounds: Any, warmup_rounds: Any, iterations: Any, setup: Any) -> None:
    """pytest-benchmark's argument checks, in its order (ValueError)."""
    if not isinstance(iterations, int) or iterations < 1:
        raise ValueError("Must have positive int for `iterations`.")
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError("Must have positive int for `rounds`.")
    if not isinstance(warmup_rounds, int) or warmup_rounds < 0:
        raise ValueError("Must have positive int for `warmup_rounds`.")
    if iterations > 1 and setup:
        raise ValueError("Can't use more than 1 `iterations` with a `setup` function.")


class Pedantic(NamedTuple):
    """The arguments of one ``benchmark.pedantic`` call, checked."""

    target: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    setup: Callable[[], Any] | None
    teardown: Callable[..., Any] | None
    rounds: int
    warmup_rounds: int
    iterations: int

    def arguments(self) -> tuple[Sequence[Any], dict[str, Any]]:
        """The arguments of the next round: what *setup* returns, if
        anything, else the given ones."""
        if self.setup is not None:
            made = self.setup()
            if made:
                if self.args or self.kwargs:
                    raise TypeError("Can't use `args` or `kwargs` if `setup` returns the arguments.")
                return made  # type: ignore[no-any-return]
        return self.args, self.kwargs

    def tear_down(self, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
        if self.teardown is not None:
            self.teardown(*args, **kwargs)


def _timed_round(
    plan: Pedantic, args: Sequence[Any], kwargs: dict[str, Any], *, timer: Callable[[], float], disable_gc: bool
) -> tuple[float, Any]:
    """One round: ``plan.iterations`` calls timed as one; (seconds, the
    last result when there was one call)."""
    target = plan.target
    with timing(disable_gc):
        result = None
        if plan.iterations == 1:
            start = timer()
            result = target(*args, **kwargs)
            end = timer()
        else:
            start = timer()
            for _ in range(plan.iterations):
                target(*args, **kwargs)
            end = timer()
        return end - start, result
