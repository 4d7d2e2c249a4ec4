"""Random numbers drawn exactly as PyTorch 2.13 draws them on the CPU.

After `manual_seed(s)`, minigrad and torch produce the same bits: the same weights, the same
dropout masks, the same losses. This module is the whole story; it knows nothing of tensors
(it returns numpy arrays) so that every layer above can use it.

The engine
    torch's CPU generator is a 32-bit Mersenne Twister (mt19937). `manual_seed(s)` fills its
    624-word state with the textbook `init_genrand` recurrence from the low 32 bits of `s`
    (state[0] = s, state[i] = 1812433253 * (state[i-1] ^ (state[i-1] >> 30)) + i) and keeps
    the whole 64-bit `s` as `initial_seed()`. The twisting and tempering are the standard
    ones, so numpy's `MT19937` bit generator computes the same words: we seed it by writing
    that state into it, and pull raw words with `random_raw`. One *word* is 32 random bits
    (torch's `random()`); a 64-bit value is two words, the first one the high half
    (torch's `random64()`).

Uniform floats (`rand`, `uniform_`, and the first stage of the normal samplers)
    float32: 24 bits of one word, `(word & (2**24 - 1)) * 2**-24`, a multiple of 2**-24 in
    [0, 1). float64: 53 bits of a 64-bit value times 2**-53. Then `x * (to - from) + from`,
    where torch's compiler fuses the multiply and the add into one FMA instruction (one
    rounding, not two): `_fma32` / `_fma64` compute exactly that.

Normal floats: three paths, chosen as torch chooses
    1. The scalar path (fewer than 16 elements, or a tensor that is not contiguous, any float
       dtype): Box-Muller in float64 from two float64 uniforms u1, u2:
       r = sqrt(-2 log1p(-u2)), theta = 2 pi u1; the sample is r cos(theta) and r sin(theta)
       is *kept* in the generator for the next scalar draw (the cache is part of the state,
       cleared by `manual_seed`). Each sample becomes `sample * std + mean` (one FMA).
    2. float64, 16 elements or more, contiguous: fill the whole buffer with float64
       uniforms, then transform it in blocks of 16: for j in 0..7, u1 = 1 - data[j],
       u2 = data[j + 8], radius = sqrt(-2 log(u1)), theta = 2 pi u2,
       data[j] = radius cos(theta) * std + mean, data[j + 8] = radius sin(theta) * std + mean.
       When the size is not a multiple of 16, the *last* 16 elements are filled with fresh
       uniforms and transformed again (they overlap the previous block). torch calls the C
       library's log, cos and sin; Python's `math` module calls the same functions (numpy's
       vectorised float64 versions round differently), so this path loops in Python.
    3. float32, 16 elements or more, contiguous: the same blocks, but torch computes each
       block of 8 pairs with AVX2 instructions in float32, with its own polynomial log and
       sincos (Cephes' coefficients, `avx_mathfun.h`), the compiler again fusing most
       multiply-adds. `_log_avx2` and `_sincos_avx2` repeat those float32 steps in numpy
       arrays, FMA by FMA; that is what makes the last bit agree.

Integers
    `randint(low, high)`: `word % (high - low) + low`, with a 64-bit value instead of a word
    when the range is 2**28 or more (measured against torch 2.13). `randperm(n)`: start from
    0..n-1 and, for i from 0 to n - 2, swap element i with element i + word % (n - i) (for n
    below 2**32 / 20; above that torch switches to an "inside-out" shuffle with 64-bit values,
    written here too).

Bernoulli (`bernoulli_(p)`, dropout masks)
    One float64 uniform per element (a 64-bit value), and the element is 1 where it is below
    p. This is torch's portable kernel, which it runs on AMD and ARM CPUs. On an Intel CPU,
    torch builds with MKL draw dropout masks from MKL's own generator instead, so masks (and
    what follows from them) differ from minigrad there; nothing else does.

Where torch itself differs between machines
    Path 3 is torch's kernel on x86-64 CPUs with AVX2 (nearly every PC since 2013). On other
    CPUs (Apple silicon, for one) torch computes float32 normals of 16 elements or more with
    the C library in float32, and those can differ from these in the last bit.

The state
    `Generator.get_state()` returns torch's 5056 bytes (`CPUGeneratorImplState`): the
    initial seed, mt19937's `left` and `next` counters, the 624 state words (stored as
    64-bit integers), the cached float64 normal, and a float32 cache torch no longer fills.
    `set_state` accepts those bytes back, from minigrad or from `torch.get_rng_state()`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np

from . import _device
from ._device import check_device
from .dtypes import kind_word

__all__ = [
    "DEFAULT_SEED",
    "Generator",
    "bernoulli",
    "default_generator",
    "fill_order",
    "integers",
    "normal",
    "permutation",
    "seed_from",
    "set_state_wrapper",
    "uniform",
]

# torch.Generator() starts from this seed (c10's default_rng_seed_val); so does minigrad's
# default generator. torch seeds *its* default generator from the operating system instead;
# minigrad does not, on purpose: a notebook that forgets manual_seed still repeats itself.
DEFAULT_SEED = 67280421310721

_N = 624  # words in the mt19937 state
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) in torch
# torch's CPUGeneratorImplState, field by field (x86-64 and ARM64 layout, little-endian);
# the bytes between fields are padding and stay zero.
_STATE_LAYOUT = np.dtype(
    {
        "names": [
            "initial_seed",
            "left",
            "seeded",
            "next",
            "words",
            "normal_x",
            "normal_y",
            "normal_rho",
            "normal_is_valid",
            "float_normal",
            "float_normal_is_valid",
        ],
        "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", (_N,)), "<f8", "<f8", "<f8", "<i4"]
        + ["<f4", "u1"],
        "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
        "itemsize": _STATE_SIZE,
    }
)

_LOW_53 = np.uint64(2**53 - 1)
_TWO_PI = 2.0 * math.pi


def _seed_words(seed: int) -> np.ndarray:
    """mt19937's init_genrand: the 624 state words for the low 32 bits of `seed`."""
    words = [seed & 0xFFFFFFFF]
    for i in range(1, _N):
        previous = words[-1]
        words.append((1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


def _as_seed(seed: object) -> int:
    """A seed as the unsigned 64-bit number torch keeps (negative seeds wrap around)."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"manual_seed(): argument 'seed' must be int, not {type(seed).__name__}")
    value = int(seed)  # type: ignore[call-overload]
    if not -(2**63) <= value < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return value % 2**64


class Generator:
    """A random number generator with torch's CPU algorithm (mt19937), state and methods.

    `minigrad.manual_seed(s)` seeds the default one; make your own to draw a separate, repeatable
    stream: `g = minigrad.Generator().manual_seed(1)` then `minigrad.randn(3, generator=g)`.
    """

    def __init__(self, device: object = "cpu") -> None:
        check_device(device, "Generator")
        self.device = _device.device("cpu")
        self._engine = np.random.MT19937(0)  # its state is replaced by manual_seed
        self.manual_seed(DEFAULT_SEED)

    def __repr__(self) -> str:
        return f"<minigrad.Generator object at {id(self):#x}>"

    # ---- seeding ------------------------------------------------------------------------

    def manual_seed(self, seed: int) -> Generator:
        """Restart from `seed` (an int; negative ones wrap to 2**64 + seed) and return self."""
        self._seed = _as_seed(seed)
        self._set_engine(_seed_words(self._seed), position=_N)
        self._fresh = True  # torch's `next` counter reads 0 until the first draw
        self._normal_cache: float | None = None  # Box-Muller's second float64 sample
        self._float_normal_cache: float | None = None  # kept for get_state/set_state only
        return self

    def seed(self) -> int:
        """Restart from a seed taken from the operating system, and return that seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed this generator was last started from."""
        return self._seed

    # ---- state --------------------------------------------------------------------------

    def get_state(self) -> object:
        """The generator's state as 5056 bytes (a uint8 tensor), the layout torch uses."""
        return _wrap_state(self._state_bytes())

    def set_state(self, new_state: object) -> Generator:
        """Restore a state from `get_state()` (minigrad's or torch's), and return self."""
        array = np.asarray(new_state)
        if array.dtype != np.uint8:
            raise TypeError("RNG state must be a minigrad.ByteTensor")
        if array.size != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input "
                f"RNG state size to be {array.size}"
            )
        fields = np.ascontiguousarray(array).reshape(-1).view(_STATE_LAYOUT)[0]
        left, next_word = int(fields["left"]), int(fields["next"])
        valid = fields["seeded"] != 0 and 1 <= left <= _N and next_word <= _N
        # numpy's engine has one counter where torch has two; torch's own states always
        # satisfy left + next == 625 (or next == 0 with left == 1, right after seeding)
        consistent = left + next_word == _N + 1 or (left == 1 and next_word == 0)
        if not (valid and consistent):
            raise RuntimeError("Invalid mt19937 state")
        self._seed = int(fields["initial_seed"])
        self._set_engine(fields["words"].astype(np.uint32), position=_N + 1 - left)
        self._fresh = next_word == 0
        self._normal_cache = float(fields["normal_y"]) if fields["normal_is_valid"] else None
        self._float_normal_cache = (
            float(fields["float_normal"]) if fields["float_normal_is_valid"] else None
        )
        return self

    def _state_bytes(self) -> np.ndarray:
        engine = self._engine.state["state"]
        position = int(engine["pos"])
        fields = np.zeros(1, dtype=_STATE_LAYOUT)
        fields["initial_seed"] = self._seed
        fields["left"] = _N + 1 - position
        fields["seeded"] = 1
        fields["next"] = 0 if self._fresh else position
        fields["words"] = engine["key"]
        if self._normal_cache is not None:
            fields["normal_y"] = self._normal_cache
            fields["normal_is_valid"] = 1
        if self._float_normal_cache is not None:
            fields["float_normal"] = self._float_normal_cache
            fields["float_normal_is_valid"] = 1
        return fields.view(np.uint8).copy()

    def _set_engine(self, words: np.ndarray, position: int) -> None:
        state = {"key": words, "pos": position}
        self._engine.state = {"bit_generator": "MT19937", "state": state}

    # ---- raw draws ----------------------------------------------------------------------

    def _words(self, count: int) -> np.ndarray:
        """`count` 32-bit words (torch's `random()`), as uint64."""
        if count <= 0:
            return np.zeros(0, dtype=np.uint64)
        self._fresh = False
        return self._engine.random_raw(count)

    def _words64(self, count: int) -> np.ndarray:
        """`count` 64-bit values (torch's `random64()`): two words each, high half first."""
        words = self._words(2 * count)
        return (words[0::2] << np.uint64(32)) | words[1::2]


# Generator.get_state returns a tensor, but tensors live in a layer above this module:
# minigrad.creation registers how to wrap the bytes when it is imported.
_wrap_state: Callable[[np.ndarray], object] = np.asarray


def set_state_wrapper(wrap: Callable[[np.ndarray], object]) -> None:
    """Tell Generator.get_state how to turn its bytes into a tensor (called by creation.py)."""
    global _wrap_state
    _wrap_state = wrap


_default = Generator()


def default_generator() -> Generator:
    """The generator minigrad's random functions use when they are given none."""
    return _default


# ---- torch.random's functions: the default generator's seed and state ------------------------


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (randn, rand, randint, randperm, nn init, dropout); return it.

    After `manual_seed(s)` every random function gives the numbers torch gives after
    `torch.manual_seed(s)`, bit for bit.
    """
    return _default.manual_seed(int(seed))  # type: ignore[call-overload]


def seed() -> int:
    """Seed the default generator from the operating system; return that seed."""
    return _default.seed()


def initial_seed() -> int:
    """The seed the default generator was last started from."""
    return _default.initial_seed()


def get_rng_state() -> object:
    """The default generator's state: a uint8 tensor of 5056 bytes, laid out as torch's."""
    return _default.get_state()


def set_rng_state(new_state: object) -> None:
    """Restore the default generator's state from `get_rng_state()` (or torch's)."""
    array = getattr(new_state, "_array", None)  # a tensor (this module sits below Tensor)
    if array is None:
        raise TypeError(f"expected a minigrad.ByteTensor, but got {type(new_state).__name__}")
    _default.set_state(array)


def seed_from(generator: Generator | None = None) -> int:
    """A 64-bit number drawn from `generator` (the default one if None), to seed another one."""
    return int(_pick(generator)._words64(1)[0])


def _pick(generator: Generator | None) -> Generator:
    if generator is None:
        return _default
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a minigrad.Generator, not {type(generator).__name__}")
    return generator


# ---- exact float arithmetic -------------------------------------------------------------


def _fma32(a: object, b: object, c: object) -> np.ndarray:
    """a * b + c for float32 values with ONE rounding to float32, as an FMA instruction does.

    The values may come as float32 or float64 arrays (float64 ones holding float32 values
    are faster here) or as numbers. A product of two float32 values is exact in float64, and
    so is the sum in the common cases; when the float64 sum itself was rounded, rounding it
    again to float32 can be wrong only if it landed exactly halfway between two float32
    numbers. Those rare elements are redone in exact integer arithmetic.
    """
    exact = np.multiply(a, b, dtype=np.float64)
    exact += c
    result = exact.astype(np.float32)
    # a float64 halfway between two float32 numbers has these low 29 mantissa bits
    halfway = (exact.view(np.int64) & (2**29 - 1)) == 2**28
    if halfway.any():
        a_all, b_all, c_all = np.broadcast_arrays(a, b, c)
        for index in zip(*np.nonzero(halfway), strict=True):
            result[index] = _fma_to_float32(
                float(a_all[index]), float(b_all[index]), float(c_all[index])
            )
    return result


def _ratio(x: float) -> tuple[int, int]:
    return x.as_integer_ratio()


def _fma_to_float32(a: float, b: float, c: float) -> np.float32:
    """a * b + c (float32 inputs) rounded once to float32, in exact integer arithmetic."""
    (an, ad), (bn, bd), (cn, cd) = _ratio(a), _ratio(b), _ratio(c)
    numerator, denominator = an * bn * cd + cn * ad * bd, ad * bd * cd  # the exact value

    def below_exact(x: np.float32) -> bool:  # x <= exact value?
        xn, xd = _ratio(float(x))
        return xn * denominator <= numerator * xd

    nearest = np.float32(numerator / denominator)
    below = nearest if below_exact(nearest) else np.nextafter(nearest, np.float32(-np.inf))
    above = np.nextafter(below, np.float32(np.inf))
    mn, md = _ratio((float(below) + float(above)) / 2)  # exact: both are float32
    if numerator * md < mn * denominator:
        return below
    if numerator * md > mn * denominator:
        return above
    return below if int(below.view(np.uint32)) % 2 == 0 else above  # a tie: the even one


def _exact_fma(a: float, b: float, c: float) -> float:
    """a * b + c for float64 values in exact integer arithmetic, rounded once to float64.

    The exact value is a ratio of integers, and Python divides integers with correct rounding.
    """
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    (an, ad), (bn, bd), (cn, cd) = _ratio(a), _ratio(b), _ratio(c)
    numerator = an * bn * cd + cn * ad * bd
    if numerator == 0:
        return a * b + c  # the sign of zero IEEE arithmetic gives
    return numerator / (ad * bd * cd)


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """a * b + c for float64 values with one rounding (element by element, exactly)."""
    return np.array([_exact_fma(x, b, c) for x in a.tolist()], dtype=np.float64)


# ---- uniform -----------------------------------------------------------------------------


def _unit32(words: np.ndarray) -> np.ndarray:
    """Floats in [0, 1) from words: 24 bits each, as float32."""
    low_bits = words.astype(np.int32) & (2**24 - 1)  # int32 converts to float32 fastest
    return low_bits.astype(np.float32) * np.float32(2**-24)


def _unit64(values: np.ndarray) -> np.ndarray:
    """Floats in [0, 1) from 64-bit values: 53 bits each, as float64."""
    return (values & _LOW_53).astype(np.float64) * 2.0**-53


def _check_float(dtype: np.dtype, kernel: str) -> None:
    if dtype == np.float16:
        raise NotImplementedError(
            "minigrad draws random float32 and float64 values only (torch's float16 samplers "
            "are not written here): draw float32 and convert with .to(minigrad.float16)"
        )
    if dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{kind_word(dtype)}'")


def uniform(
    count: int, low: float, high: float, dtype: np.dtype, generator: Generator | None = None
) -> np.ndarray:
    """`count` samples from U(low, high) in the order torch fills a tensor (float32/64)."""
    dtype = np.dtype(dtype)
    _check_float(dtype, "check_uniform_bounds")
    limit = float(np.finfo(dtype).max)
    if not -limit <= low <= limit:
        raise RuntimeError(f"from is out of bounds for {_float_word(dtype)}")
    if not -limit <= high <= limit:
        raise RuntimeError(f"to is out of bounds for {_float_word(dtype)}")
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(low)} > "
            f"to={_g(high)}"
        )
    gen = _pick(generator)
    if dtype == np.float32:
        unit = _unit32(gen._words(count))
        if low == 0 and high == 1:
            return unit  # x * 1 + 0 is x
        low32, high32 = np.float32(low), np.float32(high)
        return _fma32(unit, high32 - low32, low32)
    unit = _unit64(gen._words64(count))
    if low == 0 and high == 1:
        return unit
    return _fma64(unit, high - low, low)


def _g(value: float) -> str:
    """A number the way torch's messages print it (1 for 1.0, 0.5 for 0.5)."""
    return f"{value:g}"


def _float_word(dtype: np.dtype) -> str:
    return "float" if dtype == np.float32 else "double"


# ---- normal ------------------------------------------------------------------------------


def normal(
    count: int,
    mean: float,
    std: float,
    dtype: np.dtype,
    generator: Generator | None = None,
    contiguous: bool = True,
) -> np.ndarray:
    """`count` samples from N(mean, std**2), by the path torch takes for such a tensor."""
    dtype = np.dtype(dtype)
    _check_float(dtype, "normal_kernel_cpu")
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    gen = _pick(generator)
    if count < 16 or not contiguous:
        return _normal_scalar(gen, count, mean, std).astype(dtype)
    if dtype == np.float64:
        data = _unit64(gen._words64(count))
        _blocks(data, lambda block: _box_muller_64(block, mean, std))
        if count % 16:
            data[-16:] = _unit64(gen._words64(16))
            _blocks(data[-16:], lambda block: _box_muller_64(block, mean, std))
        return data
    data = _unit32(gen._words(count))
    mean32, std32 = np.float32(mean), np.float32(std)
    _blocks(data, lambda block: _box_muller_avx2(block, mean32, std32))
    if count % 16:
        data[-16:] = _unit32(gen._words(16))
        _blocks(data[-16:], lambda block: _box_muller_avx2(block, mean32, std32))
    return data


def _blocks(data: np.ndarray, transform: Callable[[np.ndarray], None]) -> None:
    """Apply `transform` to the whole blocks of 16 at the start of `data`, in place.

    A large buffer goes in pieces of 2**15 elements: the float32 steps then work in the
    processor's cache, which makes them several times faster.
    """
    whole = data[: len(data) - len(data) % 16].reshape(-1, 16)
    step = 2**11  # blocks of 16 per piece
    for start in range(0, len(whole), step):
        transform(whole[start : start + step])


def _normal_scalar(gen: Generator, count: int, mean: float, std: float) -> np.ndarray:
    """Path 1: float64 Box-Muller one sample at a time, with the generator's cache."""
    samples = []
    for _ in range(count):
        if gen._normal_cache is not None:
            sample, gen._normal_cache = gen._normal_cache, None
        else:
            u1, u2 = _unit64(gen._words64(2)).tolist()
            radius = math.sqrt(-2.0 * math.log1p(-u2))
            theta = _TWO_PI * u1
            gen._normal_cache = radius * math.sin(theta)
            sample = radius * math.cos(theta)
        samples.append(_exact_fma(sample, std, mean))
    return np.array(samples, dtype=np.float64)


def _box_muller_64(block: np.ndarray, mean: float, std: float) -> None:
    """Path 2 on rows of 16 float64 uniforms, in place, with the C library's log/cos/sin."""
    for row in block:
        values = row.tolist()
        for j in range(8):
            radius = math.sqrt(-2.0 * math.log(1.0 - values[j]))
            theta = _TWO_PI * values[j + 8]
            row[j] = _exact_fma(radius * math.cos(theta), std, mean)
            row[j + 8] = _exact_fma(radius * math.sin(theta), std, mean)


def _box_muller_avx2(block: np.ndarray, mean: np.float32, std: np.float32) -> None:
    """Path 3 on rows of 16 float32 uniforms, in place: torch's normal_fill_16_AVX2."""
    halves = block.view(_HALF_ROW)  # (rows, 2): the first and the last 8 values of each row
    u1 = np.float32(1) - halves[:, 0].copy().view(np.float32)  # [0, 1) -> (0, 1] for the log
    theta = np.float32(_TWO_PI) * halves[:, 1].copy().view(np.float32)
    radius = np.sqrt(np.float32(-2) * _log_avx2(u1))
    sin, cos = _sincos_avx2(theta)
    halves[:, 0] = _scale(radius * cos, mean, std).view(_HALF_ROW)
    halves[:, 1] = _scale(radius * sin, mean, std).view(_HALF_ROW)


# 8 float32 values as one item, so that numpy copies half rows of a block in one sweep
_HALF_ROW = np.dtype((np.void, 32))


def _scale(sample: np.ndarray, mean: np.float32, std: np.float32) -> np.ndarray:
    """sample * std + mean as one FMA (plain float32 steps are the same when std is 1)."""
    if std == 1:
        return sample + mean  # the product is exact, so only the sum rounds (-0 becomes 0)
    return _fma32(sample, std, mean)


# avx_mathfun.h's constants (Cephes' single-precision log, sin and cos), as float32 values
_LOG_POLY = [
    float(np.float32(c))
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1 = np.float32(-2.12194440e-4)
_LOG_Q2 = np.float32(0.693359375)
_SQRT_HALF = np.float32(0.707106781186547524)
_FOUR_OVER_PI = np.float32(1.27323954473516)
_DP1 = np.float32(-0.78515625)
_DP2 = np.float32(-2.4187564849853515625e-4)
_DP3 = float(np.float32(-3.77489497744594108e-8))
_SIN_POLY = [float(np.float32(c)) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS_POLY = [float(np.float32(c)) for c in (2.443315711809948e-005, -1.388731625493765e-003)] + [
    float(np.float32(4.166664568298827e-002))
]


def _log_avx2(x: np.ndarray) -> np.ndarray:
    """log256_ps for float32 x in (0, 1], step by step (fused multiply-adds where GCC fuses).

    x = m * 2**e with m in [sqrt(1/2), sqrt(2)); log(x) = e log(2) + log(1 + (m - 1)), the last
    one a degree-9 polynomial, with log(2) split in two parts (q2 + q1) for accuracy.
    """
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 126).astype(np.float32)
    mantissa = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)  # in [0.5, 1)
    small = mantissa < _SQRT_HALF
    exponent -= small
    m = (mantissa - np.float32(1)) + mantissa * small  # 2 m - 1 below sqrt(1/2), else m - 1
    # Horner's rule, y = y * m + p, one FMA a step. Each product and sum is exact in float64
    # (m is a multiple of 2**-24 and every |y| > 2**-5), so rounding it once is the FMA.
    m64 = m.astype(np.float64)
    y64 = m64 * _LOG_POLY[0]
    y64 += _LOG_POLY[1]
    for coefficient in _LOG_POLY[2:]:
        y64 = y64.astype(np.float32).astype(np.float64)
        y64 *= m64
        y64 += coefficient
    y = y64.astype(np.float32) * m
    z = m * m
    y = _fma32(y, z.astype(np.float64), exponent * _LOG_Q1)
    y = y - z * np.float32(0.5)  # z * 0.5 is exact, so the fused form rounds the same
    return (m + y) + exponent * _LOG_Q2  # exponent * q2 is exact (q2 has 9 bits)


def _sincos_avx2(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps for float32 theta >= 0: (sin, cos), step by step.

    theta is reduced by the nearest even multiple j of pi/4 (pi/4 split in three parts), then
    one polynomial gives the sine and another the cosine on [-pi/4, pi/4]; j picks which
    one is which and the signs.
    """
    j = (theta * _FOUR_OVER_PI).astype(np.int32)  # truncation, as _mm256_cvttps_epi32
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    x = theta + y * _DP1  # y * DP1 and y * DP2 are exact (y is a small integer)
    x = x + y * _DP2
    # y * DP3 + x is exact in float64 (both are multiples of 2**-48 below 1): one rounding
    x64 = y.astype(np.float64)
    x64 *= _DP3
    x64 += x
    x = x64.astype(np.float32)
    x64 = x.astype(np.float64)
    z = x * x
    z64 = z.astype(np.float64)

    cosine = _fma32(z64, _COS_POLY[0], _COS_POLY[1]).astype(np.float64)
    cosine = _fma32(cosine, z64, _COS_POLY[2]) * z
    cosine = _fma32(cosine.astype(np.float64), z64, -(z * np.float32(0.5)))
    cosine += np.float32(1)

    sine = _fma32(z64, _SIN_POLY[0], _SIN_POLY[1]).astype(np.float64)
    sine = _fma32(sine, z64, _SIN_POLY[2]) * z
    sine = _fma32(sine.astype(np.float64), x64, x64)

    # where j & 2 is set, the sine polynomial gave the cosine and the other way round: swap
    # those elements (by their bits: numpy's `where` is slower), then set the signs from j
    sin, cos = sine.view(np.int32), cosine.view(np.int32)
    swap = (sin ^ cos) & -((j & 2) >> 1)
    sin = sin ^ swap ^ ((j & 4) << 29)
    cos = cos ^ swap ^ ((~(j - 2) & 4) << 29)
    return sin.view(np.float32), cos.view(np.float32)


# ---- integers ----------------------------------------------------------------------------


def integers(count: int, low: int, high: int, generator: Generator | None = None) -> np.ndarray:
    """`count` integers in [low, high) as int64, torch's `word % range + low`."""
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    gen = _pick(generator)
    span = high - low
    values = gen._words64(count) if span >= 2**28 else gen._words(count)
    offset = np.uint64(low % 2**64)  # uint64 arithmetic wraps as torch's does
    return (values % np.uint64(span) + offset).view(np.int64)


def permutation(n: int, generator: Generator | None = None) -> np.ndarray:
    """A random permutation of 0 .. n-1 as int64, torch's CPU shuffle."""
    gen = _pick(generator)
    if n < 2**32 // 20:
        # swap element i with element i + word % (n - i), for i = 0 .. n-2
        offsets = (gen._words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        order = list(range(n))
        for i, offset in enumerate(offsets):
            j = i + offset
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)
    # torch's shuffle for huge n: element i moves to a random earlier place z, i takes its spot
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        z = int(gen._words64(1)[0]) % (i + 1)
        order[i] = order[z]
        order[z] = i
    return order


# ---- bernoulli ---------------------------------------------------------------------------


def bernoulli(count: int, p: float, generator: Generator | None = None) -> np.ndarray:
    """`count` draws that are True with probability p (one float64 uniform each)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    gen = _pick(generator)
    return _unit64(gen._words64(count)) < p


# ---- where the values go -----------------------------------------------------------------


def fill_order(array: np.ndarray) -> np.ndarray | None:
    """For a tensor that is not contiguous, the flat positions in the order torch fills them.

    torch walks such a tensor in memory order (its dims sorted by stride), so the k-th value
    drawn goes to the element at the k-th lowest address. None for a contiguous array.
    """
    if array.flags.c_contiguous:
        return None
    offsets = np.zeros(array.shape, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides, strict=True)):
        shape = [1] * array.ndim
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return np.argsort(offsets.reshape(-1), kind="stable")
