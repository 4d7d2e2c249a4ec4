"""The methods of a tensor that compute something, grouped by kind, as torch's TensorBase holds
the ops beneath its Python `Tensor`.

- `base.py`        TensorBase: what every group shares (numbers and arrays next to a tensor)
- `arithmetic.py`  + - * / ** @ // % and their named forms, comparisons, & | ~ ^, where
- `elementwise.py` exp, log, sigmoid, tanh, relu, sqrt, abs, sign, clamp, round, clone, casts
- `reductions.py`  sum, mean, max, min, std, var, norm, argmax, all, any, sum_to_size
- `views.py`       view, reshape, transpose, permute, squeeze, expand, unbind, split, ...
- `indexing.py`    t[key], t[key] = value, gather, masked_fill
- `inplace.py`     add_, mul_, zero_, copy_, relu_, sigmoid_, unsqueeze_, ... (the trailing _)
- `numpy_interop.py` np.asarray(t), np.array(t), np.exp(t) (torch's refusal for grad tensors)
- `printing.py`    repr(t): the numbers, then grad_fn=<...> or requires_grad=True

Each method checks its arguments (torch's messages) and runs one op of `functions/` through the
one place an op joins the graph, the layer below: `_apply` / `_apply_view` / `_apply_inplace` of
`TensorCore` (recording.py). `Tensor` (_tensor.py) inherits all of them and adds the autograd
story.
"""
