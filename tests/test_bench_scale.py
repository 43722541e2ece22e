"""The pure parts of scripts/bench_scale.py: slicing by tokens, growth exponents and the
projection they give (the script itself is run by hand: its figures are in README)."""

import importlib.util
import math

import pytest
from conftest import ROOT

pytestmark = pytest.mark.fast

spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "scripts" / "bench_scale.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def encode(text):
    return text.split()


def decode(tokens):
    return " ".join(tokens)


def test_a_slice_takes_whole_documents_and_cuts_the_last():
    docs = [("a", "1 2 3 4"), ("b", "5 6 7 8"), ("c", "9 10")]
    assert bench.slice_texts(docs, 6, encode, decode) == [("a", "1 2 3 4"), ("b", "5 6")]
    assert bench.slice_texts(docs, 4, encode, decode) == [("a", "1 2 3 4")]
    assert bench.slice_texts(docs, 100, encode, decode) == docs


def test_exponent_and_projection_follow_a_power_law():
    assert bench.exponent(1e4, 2.0, 1e5, 20.0) == pytest.approx(1.0)
    assert bench.exponent(1e4, 1.0, 1e5, 100.0) == pytest.approx(2.0)
    assert bench.exponent(1e4, 0.0, 1e5, 1.0) is None
    assert bench.project(1e4, 2.0, 1e5, 20.0, 1e6) == pytest.approx(200.0)
    assert bench.project(1e4, 1.0, 1e5, 100.0, 1e6) == pytest.approx(10_000.0)


def test_growth_names_each_stage_between_consecutive_slices():
    runs = [{"tokens": 1000, "wall_seconds": 10.0, "stage_seconds": {"embed": 4.0, "chunk": 1.0}},
            {"tokens": 10000, "wall_seconds": 100.0, "stage_seconds": {"embed": 40.0, "chunk": 100.0}}]
    (g,) = bench.growth(runs)
    assert (g["from"], g["to"]) == (1000, 10000)
    assert g["stages"]["embed"] == pytest.approx(1.0) and g["stages"]["wall"] == pytest.approx(1.0)
    assert g["stages"]["chunk"] == pytest.approx(2.0)
    assert "above" in bench.growth_table([g]) and math.isfinite(g["stages"]["chunk"])
