"""``server.ops.metric_series``: a sample lands in the first bucket whose bound holds it."""

from __future__ import annotations

import threading

import pytest

from server.ops.metric_series import CounterSeries, HistogramSeries


def test_a_sample_goes_to_the_first_bucket_at_least_as_large_and_into_the_sum() -> None:
    series = HistogramSeries(threading.Lock(), (0.1, 1.0))
    for sample in (0.05, 0.1, 0.5, 1, 7):  # an int sample too, as queue depths are
        series.observe(sample)
    assert series.counts == [2, 2, 1]  # the last bucket is +Inf
    assert series.sum == pytest.approx(8.65)


def test_a_counter_only_goes_up() -> None:
    counter = CounterSeries(threading.Lock())
    counter.inc()
    counter.inc(2)
    assert counter.value == 3.0
    with pytest.raises(ValueError, match="only go up"):
        counter.inc(-1)
    assert counter.value == 3.0


def test_a_count_lands_where_observe_puts_it_small_or_large() -> None:
    bounds = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
    by_table, by_bisection = (HistogramSeries(threading.Lock(), bounds) for _ in range(2))
    for count in [*range(200), 10_000]:
        by_table.observe_count(count)
        by_bisection.observe(count)
    assert by_table.counts == by_bisection.counts
    assert by_table.sum == by_bisection.sum
