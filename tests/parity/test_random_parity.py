"""Same seed, same numbers: minigrad's random functions against torch 2.13, bit for bit.

Every case seeds both libraries, runs the same calls with each, and compares the raw bytes of
every result and, at the end, the generators' states (torch's 5056-byte layout). Sizes sit
below, at and above every size where torch changes path: 16 for normals (one value at a time
below, blocks of 16 from there, the last block redrawn when the size is not a multiple of 16),
minigrad's pieces of 2**15 normals, 2**28 for randint (64-bit draws from there).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

# the seeds the development ran against, and held-out ones no case was written against
SEEDS = [0, 1, 42]
HELD_OUT = [7, 2024, 987654321, 2**32 + 5, 2**63 + 11, -3]

NORMAL_SIZES = [1, 2, 3, 7, 8, 15, 16, 17, 24, 31, 32, 33, 47, 48, 49, 100, 255, 256, 257]
LARGE_SIZES = [4095, 4096, 4097, 32767, 32768, 32769, 65537, 100_003]


def as_bytes(value: Any) -> Any:
    """A result as comparable plain data: tensors by dtype, shape and raw bytes."""
    if isinstance(value, (torch.Tensor, minigrad.Tensor)):
        array = np.ascontiguousarray(value.detach().numpy())
        return (str(array.dtype), array.shape, array.tobytes())
    if isinstance(value, (list, tuple)):
        return [as_bytes(item) for item in value]
    return value


def check(seed: int, script: Callable[[Any], list]) -> None:
    """Run `script(lib)` after lib.manual_seed(seed) for both; results and states must agree."""
    results = {}
    for lib in (torch, minigrad):
        lib.manual_seed(seed)
        outputs = script(lib)
        state = lib.get_rng_state()
        results[lib.__name__] = (as_bytes(outputs), as_bytes(state))
    expected, actual = results["torch"], results["minigrad"]
    for index, (e, a) in enumerate(zip(expected[0], actual[0], strict=True)):
        if e != a:
            detail = ""
            if isinstance(e, tuple) and isinstance(a, tuple) and e[:2] == a[:2]:
                t, m = np.frombuffer(e[2], e[0]), np.frombuffer(a[2], a[0])
                detail = f": {int((t != m).sum())} of {t.size} values differ"
            raise AssertionError(f"result {index} differs from torch (seed {seed}){detail}")
    assert expected[1] == actual[1], f"the generator state differs from torch's (seed {seed})"


def dtype_of(lib: Any, name: str) -> Any:
    return getattr(lib, name)


ALL_SEEDS = SEEDS + HELD_OUT


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", NORMAL_SIZES)
def test_randn_float32_every_small_size(seed, n):
    check(seed, lambda lib: [lib.randn(n), lib.randn(n)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", LARGE_SIZES)
def test_randn_float32_large(seed, n):
    check(seed, lambda lib: [lib.randn(n)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", [0, 2**40 + 3])
def test_randn_a_million(seed):
    check(seed, lambda lib: [lib.randn(1000, 1000)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("shape", [(3, 5), (4, 4), (2, 3, 7), (1,), (), (0,), (64, 3), (32, 1)])
def test_randn_and_rand_shapes(seed, shape):
    def script(lib):
        outputs = [lib.randn(shape), lib.rand(shape)]
        if shape:  # torch.randn() with no size at all is a TypeError
            outputs += [lib.randn(*shape), lib.rand(*shape)]
        return outputs

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", [1, 5, 15, 16, 17, 33, 100, 1000])
def test_float64(seed, n):
    def script(lib):
        double = dtype_of(lib, "float64")
        return [
            lib.randn(n, dtype=double),
            lib.rand(n, dtype=double),
            lib.zeros(n, dtype=double).normal_(0.5, 3.0),
            lib.zeros(n, dtype=double).uniform_(-2.0, 0.7),
        ]

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", [1, 4, 15, 16, 17, 31, 32, 33, 500, 4097])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (0.0, 0.02), (1.5, 2.5), (-3.0, 0.1)])
def test_normal_(seed, n, mean, std):
    check(seed, lambda lib: [lib.zeros(n).normal_(mean, std), lib.zeros(n).normal_(mean, std)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 300, 5000])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-1.0, 1.0), (-0.37, 0.81), (2.5, 7.1)])
def test_uniform_(seed, n, low, high):
    check(seed, lambda lib: [lib.zeros(n).uniform_(low, high)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize(
    "low,high",
    [(0, 1), (0, 10), (-5, 5), (3, 2**28 - 1), (0, 2**28), (0, 2**28 + 1), (-(2**40), 2**40)],
)
def test_randint(seed, low, high):
    def script(lib):
        return [
            lib.randint(low, high, (7,)),
            lib.randint(high - low, (3, 2)),
            lib.randint(low, high, (40,)),
        ]

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 200, 10_000])
def test_randperm(seed, n):
    check(seed, lambda lib: [lib.randperm(n), lib.randperm(n)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_(seed, p):
    check(seed, lambda lib: [lib.zeros(37).bernoulli_(p), lib.zeros(3, 4).bernoulli_(p)])


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("p", [0.1, 0.25, 0.5, 0.8])
def test_dropout_masks(seed, p):
    def script(lib):
        x = lib.randn(6, 7)
        layer = lib.nn.Dropout(p)
        return [lib.nn.functional.dropout(x, p), layer(x), layer(lib.randn(40))]

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("shape", [(4, 3), (16, 8), (3, 5, 2), (1, 1), (40, 20)])
def test_nn_init(seed, shape):
    def script(lib):
        init = lib.nn.init
        outputs = [
            init.uniform_(lib.zeros(*shape), -0.3, 0.6),
            init.normal_(lib.zeros(*shape), 0.1, 0.02),
            init.kaiming_uniform_(lib.zeros(*shape), a=math.sqrt(5)),
            init.kaiming_uniform_(lib.zeros(*shape), nonlinearity="relu", mode="fan_out"),
            init.kaiming_normal_(lib.zeros(*shape)),
            init.xavier_uniform_(lib.zeros(*shape), gain=init.calculate_gain("tanh")),
            init.xavier_normal_(lib.zeros(*shape)),
            init.zeros_(lib.ones(*shape)),
            init.ones_(lib.zeros(*shape)),
            init.constant_(lib.zeros(*shape), 0.25),
        ]
        return [*outputs, lib.randn(3)]

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("sizes", [(1, 1), (2, 4), (3, 16), (16, 3), (33, 17)])
def test_layer_initialisation(seed, sizes):
    def script(lib):
        nn = lib.nn
        a, b = sizes
        linear = nn.Linear(a, b)
        no_bias = nn.Linear(b, a, bias=False)
        embedding = nn.Embedding(a + 5, b, padding_idx=1)
        cell = nn.RNNCell(a, b)
        model = nn.Sequential(nn.Linear(a, 4), nn.Tanh(), nn.Linear(4, 1))
        return [
            *linear.parameters(),
            no_bias.weight,
            embedding.weight,
            *cell.parameters(),
            *model.parameters(),
        ]

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_a_long_sequence_of_mixed_calls(seed):
    def script(lib):
        outputs = [lib.randn(3), lib.rand(2, 2), lib.randint(0, 5, (4,)), lib.randn(17)]
        outputs += [lib.randperm(6), lib.randn(1), lib.zeros(5).normal_(2.0, 0.5)]
        outputs += [lib.nn.Linear(3, 2).weight, lib.randn(33), lib.zeros(9).bernoulli_(0.4)]
        outputs += [lib.nn.functional.dropout(lib.ones(20), 0.3), lib.randn(2, 8)]
        outputs += [lib.randint(2**30, (5,)), lib.randn(5), lib.rand(700), lib.randn(3)]
        return outputs

    check(seed, script)


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_generators_and_saved_states(seed):
    def script(lib):
        own = lib.Generator().manual_seed(seed + 1)
        outputs = [lib.randn(5, generator=own), lib.randn(3)]
        state = lib.get_rng_state()
        outputs += [lib.randn(20), lib.rand(3)]
        lib.set_rng_state(state)
        outputs += [lib.randn(20), lib.rand(3, generator=own), lib.randperm(4, generator=own)]
        outputs += [lib.randint(0, 9, (3,), generator=own), own.get_state()]
        outputs += [lib.zeros(4).normal_(generator=own), lib.zeros(4).uniform_(generator=own)]
        return [*outputs, lib.initial_seed(), own.initial_seed()]

    check(seed, script)


@pytest.mark.parity
def test_a_torch_state_restores_into_minigrad():
    torch.manual_seed(11)
    torch.randn(5)  # a cached normal is part of the state
    state = torch.get_rng_state()
    expected = as_bytes([torch.randn(7), torch.rand(20), torch.randperm(9)])
    minigrad.set_rng_state(minigrad.from_numpy(state.numpy().copy()))
    actual = as_bytes([minigrad.randn(7), minigrad.rand(20), minigrad.randperm(9)])
    assert actual == expected


@pytest.mark.parity
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_non_contiguous_fills(seed):
    def script(lib):
        a = lib.zeros(6, 5)
        a.t().normal_(0.5, 2.0)
        b = lib.zeros(8, 6)
        b[:, ::2].uniform_(-1, 3)
        c = lib.zeros(5, 4)
        c.t().bernoulli_(0.5)
        return [a, b, c, lib.nn.functional.dropout(lib.ones(4, 5).t(), 0.5)]

    check(seed, script)
