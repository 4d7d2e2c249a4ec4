"""minigrad.random without torch: determinism, generators, state, and torch's errors.

The bit-for-bit comparison with torch is tests/parity/test_random_parity.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import nn, random


def draws(generator=None):
    """One of every sampler, as plain lists."""
    return [
        minigrad.randn(5, generator=generator).tolist(),
        minigrad.randn(40, generator=generator).tolist(),
        minigrad.rand(3, 2, generator=generator).tolist(),
        minigrad.randint(0, 10, (6,), generator=generator).tolist(),
        minigrad.randperm(7, generator=generator).tolist(),
        minigrad.zeros(17).normal_(1.0, 2.0, generator=generator).tolist(),
        minigrad.zeros(4).uniform_(-1, 1, generator=generator).tolist(),
        minigrad.zeros(9).bernoulli_(0.3, generator=generator).tolist(),
    ]


def test_same_seed_same_numbers_and_other_seed_other_numbers():
    minigrad.manual_seed(3)
    first = draws()
    minigrad.manual_seed(3)
    assert draws() == first
    minigrad.manual_seed(4)
    assert draws() != first


def test_manual_seed_returns_the_default_generator_with_a_short_repr():
    generator = minigrad.manual_seed(0)
    assert generator is minigrad.default_generator
    assert isinstance(generator, minigrad.Generator)
    assert repr(generator).startswith("<minigrad.Generator object at 0x")
    assert minigrad.initial_seed() == 0


def test_seeds_wrap_like_torch():
    assert minigrad.manual_seed(-1).initial_seed() == 2**64 - 1
    assert minigrad.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        minigrad.manual_seed(2**64)
    with pytest.raises(TypeError, match="must be int"):
        minigrad.Generator().manual_seed(1.5)
    minigrad.manual_seed(0)


def test_seed_picks_a_new_seed_and_reports_it():
    value = minigrad.seed()
    assert minigrad.initial_seed() == value
    minigrad.manual_seed(0)


def test_own_generator_is_independent_of_the_default_one():
    minigrad.manual_seed(1)
    expected = draws()
    minigrad.manual_seed(1)
    own = minigrad.Generator().manual_seed(1)
    assert draws(own) == expected
    assert draws() == expected  # the default generator did not move
    assert minigrad.Generator().initial_seed() == random.DEFAULT_SEED


def test_state_save_and_restore_repeats_the_numbers():
    minigrad.manual_seed(5)
    minigrad.randn(3)  # leaves a cached normal in the generator
    state = minigrad.get_rng_state()
    assert state.dtype == minigrad.uint8 and state.shape == (5056,)
    after = draws()
    minigrad.set_rng_state(state)
    assert draws() == after
    own = minigrad.Generator().set_state(state)
    assert draws(own) == after


def test_state_right_after_seeding_reads_like_torch():
    state = minigrad.manual_seed(7).get_state().numpy()
    assert state[:8].view(np.uint64)[0] == 7  # the initial seed
    assert state[8:16].view(np.int32).tolist() == [1, 1]  # left, seeded
    assert state[16:24].view(np.uint64)[0] == 0  # next
    assert state[24:32].view(np.uint64)[0] == 7  # the first state word is the seed


def test_bad_states_are_refused():
    with pytest.raises(TypeError, match="RNG state must be a minigrad.ByteTensor"):
        minigrad.set_rng_state(minigrad.zeros(5056))
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        minigrad.set_rng_state(minigrad.zeros(10, dtype=minigrad.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        minigrad.set_rng_state(minigrad.zeros(5056, dtype=minigrad.uint8))


def test_small_normal_draws_keep_the_second_box_muller_sample():
    # fewer than 16 values come one at a time: an odd count leaves one for the next call
    minigrad.manual_seed(0)
    together = minigrad.randn(6).tolist()
    minigrad.manual_seed(0)
    apart = minigrad.randn(3).tolist() + minigrad.randn(3).tolist()
    assert apart == together


@pytest.mark.parametrize("n", [15, 16, 17, 31, 32, 33, 1000])
def test_normals_look_normal(n):
    values = minigrad.randn(n * 50).numpy()
    assert abs(values.mean()) < 0.2 and 0.8 < values.std() < 1.2


def test_dtypes_and_shapes():
    assert minigrad.randn(2, 3).dtype == minigrad.float32
    assert minigrad.randn((2, 3)).shape == (2, 3)
    assert minigrad.randn(4, dtype=minigrad.float64).dtype == minigrad.float64
    assert minigrad.rand(20, dtype=minigrad.float64).dtype == minigrad.float64
    assert minigrad.randint(5, (3,)).dtype == minigrad.int64
    assert min(minigrad.randint(low=2, high=5, size=(3,)).tolist()) >= 2
    assert minigrad.randint(0, 5, (2,), dtype=minigrad.float32).dtype == minigrad.float32
    assert minigrad.randperm(5).dtype == minigrad.int64
    assert sorted(minigrad.randperm(50).tolist()) == list(range(50))
    assert minigrad.randperm(0).shape == (0,)
    assert minigrad.randn(3, requires_grad=True).requires_grad


def test_bad_input_errors_as_torch_words_them():
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got"):
        minigrad.randint(5, 2, (3,))
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        minigrad.randperm(-1)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -3"):
        minigrad.rand(2, -3)
    with pytest.raises(TypeError, match="argument 'high' .* must be int, not float"):
        minigrad.randint(3.5, (3,))
    with pytest.raises(TypeError, match="argument 'size' .* must be tuple of ints, not int"):
        minigrad.randint(10, 3)
    with pytest.raises(RuntimeError, match="from is out of bounds for unsigned char"):
        minigrad.randint(-1, 5, (3,), dtype=minigrad.uint8)
    with pytest.raises(RuntimeError, match="uniform_ expects to return a \\[from, to\\) range"):
        minigrad.zeros(3).uniform_(1, 0)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        minigrad.zeros(3).normal_(0, -1)
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in \\[0, 1\\]"):
        minigrad.zeros(3).bernoulli_(1.5)
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu\" not implemented for 'Long'"):
        minigrad.randn(3, dtype=minigrad.int64)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        minigrad.randint(0, 5, (3,), requires_grad=True)
    with pytest.raises(TypeError, match="generator must be a minigrad.Generator"):
        minigrad.randn(3, generator=5)


def test_in_place_fills_are_recorded_like_torch():
    a = minigrad.ones(3, requires_grad=True) * 1
    assert type(a.normal_().grad_fn).__name__ == "NormalBackward0"
    assert type(a.uniform_().grad_fn).__name__ == "UniformBackward0"
    assert type(a.bernoulli_(0.5).grad_fn).__name__ == "BernoulliBackward2"
    a.sum().backward()  # the old values are gone: no gradient flows through a fill
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        minigrad.ones(3, requires_grad=True).normal_()


def test_a_non_contiguous_tensor_is_filled_in_memory_order():
    # torch walks it by address: a transpose gets the same values as its contiguous base
    minigrad.manual_seed(2)
    base = minigrad.zeros(4, 6).uniform_()
    minigrad.manual_seed(2)
    other = minigrad.zeros(6, 4)
    other.t().uniform_()
    assert other.tolist() == base.view(6, 4).tolist()


def test_dropout_draws_nothing_when_it_does_nothing():
    minigrad.manual_seed(0)
    x = minigrad.ones(5)
    nn.functional.dropout(x, 0.0)
    nn.functional.dropout(x, 1.0)
    nn.functional.dropout(x, 0.5, training=False)
    after = minigrad.randn(2).tolist()
    minigrad.manual_seed(0)
    assert minigrad.randn(2).tolist() == after


def test_dropout_keeps_scaled_values():
    minigrad.manual_seed(0)
    out = nn.functional.dropout(minigrad.ones(1000), 0.25).numpy()
    kept = out[out != 0]
    assert np.all(kept == np.float32(1) / np.float32(0.75))
    assert 600 < kept.size < 900


def test_exact_fma_rounds_halfway_cases_once():
    # 1 + 2**-24 is halfway between two float32 numbers; the tiny third term decides
    half = 2.0**-24
    assert random._fma_to_float32(1.0, 1.0, half + 2.0**-60) == np.float32(1 + 2.0**-23)
    assert random._fma_to_float32(1.0, 1.0, half - 2.0**-60) == np.float32(1.0)
    assert random._fma_to_float32(1.0, 1.0, half) == np.float32(1.0)  # a tie: the even one
    values = random._fma32(np.float32(1.0), np.float32(1.0), np.array([half + 2.0**-60]))
    assert values[0] == np.float32(1 + 2.0**-23)


def test_data_without_seed_follows_manual_seed():
    minigrad.manual_seed(7)
    first = minigrad.data.noisy_line(5)[1].tolist()
    minigrad.manual_seed(7)
    assert minigrad.data.noisy_line(5)[1].tolist() == first
