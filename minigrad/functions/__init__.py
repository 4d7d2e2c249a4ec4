"""The operations, one class per torch `grad_fn`, grouped by kind.

- `arith.py`    add, sub, mul, div, neg, reciprocal, pow
- `unary.py`    exp, log, sigmoid, tanh, relu, sqrt, abs, clamp, round, clone, dtype casts
- `reduce.py`   sum, mean, max
- `linalg.py`   matrix products (mm, mv, dot)
- `views.py`    results that share memory with their input, indexing, cat and stack
- `inplace.py`  the nodes in-place changes record (fill_, zero_, copy_, CopySlices, and the
                random fills normal_, uniform_, bernoulli_)
- `nn.py`       what minigrad.nn.functional records (addmm, softmax, the losses)

Every class takes numpy arrays in `forward` and returns an array; it names what it saves after
the input (`self`, `other`, `result`, as torch's `_saved_*`), and its docstring states its
derivative one line per input, in the style of torch's derivatives.yaml (`self: grad * other`).
Nothing here knows the Tensor class: tensor.py runs these and joins them to the graph.
"""
