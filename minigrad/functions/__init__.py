"""The operations, one class per torch `grad_fn`, grouped by kind.

- `arith.py`    add, sub, mul, div, neg, reciprocal, pow, remainder, floor division
- `unary.py`    exp, log, sigmoid, tanh, relu, sqrt, abs, sign, clamp, round, where, clone,
                dtype casts
- `reduce.py`   sum, mean, max, min, amax, var, std, norm
- `linalg.py`   matrix products (mm, mv, dot, bmm)
- `views.py`    results that share memory with their input (and unbind, split), indexing,
                gather, masked_fill, cat and stack
- `inplace.py`  the nodes in-place changes record (fill_, zero_, copy_, CopySlices, and the
                random fills normal_, uniform_, bernoulli_)
- `nn.py`       what minigrad.nn.functional records (addmm, softmax, the losses)
- `formulas.py` record(), sum_to(), constant(), ...: what backward formulas are written with

Every class takes numpy arrays in `forward` and returns an array; `saves` names the inputs
backward needs (`Save("other", input=1, needed_for=0)`: torch's `_saved_other`; `saves_result`
for the output), and its docstring states its derivative one line per input, in the style of
torch's derivatives.yaml (`self: grad * other`). `backward` is written once, with what
`formulas.py` offers: it runs on arrays, and on tensors when backward records itself
(create_graph=True). Nothing here imports the Tensor class: recording.py runs these and joins
them to the graph.
"""
