"""minigrad.nn: Parameter, Module bookkeeping, layers, losses (gradients checked with gradcheck)."""

import copy
import math

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck


def float64(values, requires_grad=True):
    """A float64 leaf, as gradcheck needs."""
    return minigrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def random64(*shape, seed=0, requires_grad=True):
    rng = np.random.default_rng(seed)
    return float64(rng.standard_normal(shape), requires_grad)


# ---- Parameter ---------------------------------------------------------------------------------


def test_parameter_is_a_leaf_that_requires_grad():
    p = nn.Parameter(minigrad.tensor([1.0, 2.0]))
    assert isinstance(p, minigrad.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_parameter_repr_like_torch():
    assert repr(nn.Parameter(minigrad.tensor([1.0, 2.0]))) == (
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    )
    frozen = nn.Parameter(minigrad.tensor([1.0, 2.0]), requires_grad=False)
    assert repr(frozen) == "Parameter containing:\ntensor([1., 2.])"


def test_parameter_shares_memory_with_its_source():
    source = minigrad.tensor([1.0, 2.0])
    p = nn.Parameter(source)
    with minigrad.no_grad():
        p.mul_(10)
    assert source.tolist() == [10.0, 20.0]


def test_integer_parameter_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(minigrad.tensor([1, 2]))


# ---- Module bookkeeping ------------------------------------------------------------------------


class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(minigrad.ones(1))
        self.first = nn.Linear(2, 3)
        self.act = nn.Tanh()
        self.second = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
        self.note = "plain attributes are not registered"

    def forward(self, x):
        return self.second(self.act(self.first(x))) * self.scale


def test_named_parameters_in_torch_order():
    names = [name for name, _ in TwoLayers().named_parameters()]
    assert names == [
        "scale",
        "first.weight",
        "first.bias",
        "second.0.weight",
        "second.0.bias",
        "second.2.weight",
        "second.2.bias",
    ]


def test_parameters_children_modules():
    model = TwoLayers()
    assert len(list(model.parameters())) == 7
    assert [type(m).__name__ for m in model.children()] == ["Linear", "Tanh", "Sequential"]
    assert [type(m).__name__ for m in model.modules()] == [
        "TwoLayers",
        "Linear",
        "Tanh",
        "Sequential",
        "Linear",
        "ReLU",
        "Linear",
    ]
    assert [name for name, _ in model.named_modules()][:5] == [
        "",
        "first",
        "act",
        "second",
        "second.0",
    ]
    assert model.note == "plain attributes are not registered"
    assert len(list(model.parameters(recurse=False))) == 1


def test_shared_parameter_listed_once():
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2


def test_assigning_a_plain_tensor_to_a_parameter_name_is_refused():
    layer = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'minigrad.FloatTensor' as parameter"):
        layer.weight = minigrad.zeros(2, 2)
    layer.bias = None  # None is allowed, as in torch
    assert layer.bias is None
    assert [name for name, _ in layer.named_parameters()] == ["weight"]


def test_parameter_before_init_is_refused():
    class Broken(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(minigrad.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Broken()


def test_missing_attribute_message():
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        nn.Linear(1, 1).nope  # noqa: B018


def test_call_runs_forward_and_base_forward_is_missing():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_train_eval_recursive():
    model = TwoLayers()
    assert model.training and model.first.training
    assert model.eval() is model
    assert not model.training and not model.second[0].training
    model.train()
    assert all(m.training for m in model.modules())


def test_eval_does_not_stop_recording():
    model = nn.Linear(2, 1).eval()
    assert model(minigrad.ones(1, 2)).requires_grad


def test_requires_grad_freezes_every_parameter():
    model = TwoLayers()
    assert model.first.requires_grad_(False) is model.first
    assert not model.first.weight.requires_grad and not model.first.bias.requires_grad
    assert model.second[0].weight.requires_grad


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    model = nn.Linear(2, 1)
    model(minigrad.ones(3, 2)).sum().backward()
    grad = model.weight.grad
    model.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert model.weight.grad is None
    else:
        assert model.weight.grad is grad and model.weight.grad.tolist() == [[0.0, 0.0]]


def test_state_dict_is_detached_and_shares_memory():
    layer = nn.Linear(2, 3)
    state = layer.state_dict()
    assert list(state) == ["weight", "bias"]
    assert not state["weight"].requires_grad
    assert not isinstance(state["weight"], nn.Parameter)
    assert state["weight"]._storage is layer.weight._storage  # a view of the values, no copy
    with minigrad.no_grad():
        layer.weight.zero_()
    assert state["weight"].tolist() == [[0.0, 0.0]] * 3
    assert list(TwoLayers().state_dict())[:3] == ["scale", "first.weight", "first.bias"]


def test_load_state_dict_copies_so_a_target_network_is_independent():
    minigrad.manual_seed(0)
    online, target = nn.Linear(2, 2), nn.Linear(2, 2)
    result = target.load_state_dict(online.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert target.weight.tolist() == online.weight.tolist()
    assert target.weight._storage is not online.weight._storage
    before = target.weight.tolist()
    with minigrad.no_grad():
        online.weight.add_(1.0)
    assert target.weight.tolist() == before


def test_load_state_dict_errors():
    layer = nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        layer.load_state_dict({"weight": minigrad.zeros(3, 2)})
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        layer.load_state_dict({**layer.state_dict(), "extra": minigrad.zeros(1)})
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        layer.load_state_dict({"weight": minigrad.zeros(2, 2), "bias": minigrad.zeros(3)})
    result = layer.load_state_dict({"weight": minigrad.zeros(3, 2)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []
    assert layer.weight.tolist() == [[0.0, 0.0]] * 3


def test_deepcopy_makes_independent_leaves():
    online = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    target = copy.deepcopy(online)
    assert repr(target) == repr(online)
    assert target[0].weight is not online[0].weight
    assert target[0].weight.tolist() == online[0].weight.tolist()
    target(minigrad.ones(1, 2)).sum().backward()
    assert online[0].weight.grad is None  # gradients reach the copy only
    assert target[0].weight.grad is not None


def test_double_keeps_parameter_objects():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    assert layer.double() is layer
    assert layer.weight is weight and layer.weight.dtype == minigrad.float64
    assert layer(minigrad.ones(1, 2, dtype=minigrad.float64)).dtype == minigrad.float64


def test_register_buffer_goes_to_state_dict_not_parameters():
    module = nn.Module()
    module.register_buffer("running", minigrad.zeros(2))
    assert list(module.state_dict()) == ["running"]
    assert list(module.parameters()) == []


# ---- repr ------------------------------------------------------------------------------------


def test_sequential_repr_like_torch():
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 1), nn.Sigmoid())
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=64, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(in_features=64, out_features=1, bias=True)\n"
        "  (3): Sigmoid()\n"
        ")"
    )


def test_nested_repr_indents_children():
    assert repr(TwoLayers()) == (
        "TwoLayers(\n"
        "  (first): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (act): Tanh()\n"
        "  (second): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=3, bias=True)\n"
        "    (1): ReLU()\n"
        "    (2): Linear(in_features=3, out_features=1, bias=True)\n"
        "  )\n"
        ")"
    )


@pytest.mark.parametrize(
    ("module", "text"),
    [
        (nn.Linear(2, 3, bias=False), "Linear(in_features=2, out_features=3, bias=False)"),
        (nn.RNNCell(3, 5), "RNNCell(3, 5)"),
        (
            nn.RNNCell(3, 5, bias=False, nonlinearity="relu"),
            "RNNCell(3, 5, bias=False, nonlinearity=relu)",
        ),
        (nn.Embedding(10, 3), "Embedding(10, 3)"),
        (nn.MSELoss(), "MSELoss()"),
        (nn.CrossEntropyLoss(), "CrossEntropyLoss()"),
        (nn.BCEWithLogitsLoss(), "BCEWithLogitsLoss()"),
    ],
)
def test_layer_reprs(module, text):
    assert repr(module) == text


# ---- Sequential ----------------------------------------------------------------------------------


def test_sequential_indexing_len_iter_append():
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert len(model) == 2 and isinstance(model[0], nn.Linear) and isinstance(model[-1], nn.ReLU)
    assert isinstance(model[:1], nn.Sequential) and len(model[:1]) == 1
    model.append(nn.Linear(2, 1))
    assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear"]
    assert model(minigrad.ones(4, 2)).shape == (4, 1)


def test_module_list_registers_its_modules():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    assert len(list(layers.parameters())) == 4
    assert [name for name, _ in layers.named_parameters()][0] == "0.weight"


# ---- Linear ------------------------------------------------------------------------------------


def test_linear_init_is_uniform_within_torch_bound_and_seeded():
    minigrad.manual_seed(3)
    first = nn.Linear(50, 40)
    minigrad.manual_seed(3)
    second = nn.Linear(50, 40)
    assert first.weight.shape == (40, 50) and first.bias.shape == (40,)
    assert first.weight.dtype == minigrad.float32
    assert first.weight.tolist() == second.weight.tolist()
    assert first.bias.tolist() == second.bias.tolist()
    bound = 1 / math.sqrt(50)
    weights = first.weight.detach().numpy()
    assert np.abs(weights).max() <= bound
    assert np.abs(weights).max() > 0.9 * bound  # spread over the whole interval
    assert np.abs(first.bias.detach().numpy()).max() <= bound
    assert first.weight.tolist() != nn.Linear(50, 40).weight.tolist()


def test_linear_graph_matches_torch_nodes():
    layer = nn.Linear(2, 3)
    out = layer(minigrad.ones(4, 2))
    assert out.grad_fn.name() == "AddmmBackward0"
    names = [(n.name() if n else None) for n, _ in out.grad_fn.next_functions]
    assert names == ["AccumulateGrad", None, "TBackward0"]
    assert out.grad_fn.next_functions[0][0].variable is layer.bias
    no_bias = nn.Linear(2, 3, bias=False)(minigrad.ones(4, 2))
    assert no_bias.grad_fn.name() == "MmBackward0"


def test_linear_other_input_ranks():
    layer = nn.Linear(2, 3)
    assert layer(minigrad.ones(2)).shape == (3,)
    assert layer(minigrad.ones(5, 4, 2)).shape == (5, 4, 3)
    assert layer(minigrad.ones(2)).grad_fn.name() == "ViewBackward0"


def test_linear_gradcheck_input_and_parameters():
    layer = nn.Linear(3, 2).double()
    x = random64(4, 3)
    assert gradcheck(lambda x, w, b: layer(x), [x, layer.weight, layer.bias])


def test_linear_without_bias_gradcheck():
    layer = nn.Linear(3, 2, bias=False).double()
    assert gradcheck(lambda x, w: layer(x), [random64(4, 3), layer.weight])


def test_mlp_with_every_activation_gradcheck():
    model = nn.Sequential(
        nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 2), nn.ReLU()
    ).double()
    params = list(model.parameters())
    x = random64(3, 2, seed=1)
    assert gradcheck(lambda x, *ps: model(x), [x, *params])


# ---- RNNCell -----------------------------------------------------------------------------------


def test_rnn_cell_shapes_and_init_bound():
    minigrad.manual_seed(0)
    cell = nn.RNNCell(3, 4)
    names = [name for name, _ in cell.named_parameters()]
    assert names == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert all(np.abs(p.detach().numpy()).max() <= 0.5 for p in cell.parameters())
    h = cell(minigrad.ones(2, 3))
    assert h.shape == (2, 4) and h.grad_fn.name() == "TanhBackward0"
    assert cell(minigrad.ones(3)).shape == (4,)
    assert cell(minigrad.ones(3), cell(minigrad.ones(3))).shape == (4,)


def test_rnn_cell_gradcheck_two_steps():
    cell = nn.RNNCell(2, 3).double()
    x1, x2, h0 = random64(4, 2, seed=1), random64(4, 2, seed=2), random64(4, 3, seed=3)
    assert gradcheck(lambda a, b, h, *ps: cell(b, cell(a, h)), [x1, x2, h0, *cell.parameters()])


def test_rnn_cell_relu_gradcheck():
    cell = nn.RNNCell(2, 3, nonlinearity="relu").double()
    assert gradcheck(lambda x, *ps: cell(x), [random64(4, 2), *cell.parameters()])


def test_rnn_cell_rejects_unknown_nonlinearity():
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNNCell(2, 2, nonlinearity="gelu")


# ---- Embedding ---------------------------------------------------------------------------------


def test_embedding_lookup_and_repeated_index_gradient():
    emb = nn.Embedding(5, 2)
    out = emb(minigrad.tensor([[1, 3], [1, 1]]))
    assert out.shape == (2, 2, 2) and out.grad_fn.name() == "EmbeddingBackward0"
    out.sum().backward()
    assert emb.weight.grad.tolist() == [[0, 0], [3, 3], [0, 0], [1, 1], [0, 0]]


def test_embedding_padding_row_is_zero_and_gets_no_gradient():
    emb = nn.Embedding(4, 2, padding_idx=0)
    assert emb.weight[0].tolist() == [0.0, 0.0]
    emb(minigrad.tensor([0, 2])).sum().backward()
    assert emb.weight.grad[0].tolist() == [0.0, 0.0]


def test_embedding_gradcheck():
    emb = nn.Embedding(5, 3).double()
    indices = minigrad.tensor([0, 4, 4, 2])
    assert gradcheck(lambda w: emb(indices), [emb.weight])


def test_embedding_needs_integer_indices():
    with pytest.raises(RuntimeError, match="indices"):
        nn.Embedding(3, 2)(minigrad.tensor([0.0]))


# ---- softmax / log_softmax -----------------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_gradcheck(dim):
    x = random64(3, 4)
    assert gradcheck(lambda x: F.softmax(x, dim), [x])
    assert gradcheck(lambda x: F.log_softmax(x, dim), [x])


def test_softmax_values_and_stability():
    x = minigrad.tensor([[1000.0, 1000.0], [-1000.0, 0.0]])
    assert F.softmax(x, dim=1).tolist() == [[0.5, 0.5], [0.0, 1.0]]
    log_p = F.log_softmax(x, dim=1)
    assert np.isfinite(log_p.numpy()[0]).all()
    assert log_p.grad_fn is None
    assert F.softmax(random64(2, 3), 1).grad_fn.name() == "SoftmaxBackward0"
    assert F.log_softmax(random64(2, 3), 1).grad_fn.name() == "LogSoftmaxBackward0"


def test_softmax_without_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        F.softmax(minigrad.ones(2, 3))


def test_functional_activations():
    x = minigrad.tensor([-1.0, 0.0, 2.0])
    assert F.relu(x).tolist() == [0.0, 0.0, 2.0]
    assert F.sigmoid(x).allclose(x.sigmoid()) and F.tanh(x).allclose(x.tanh())


# ---- losses ------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_gradcheck_input_and_target(reduction):
    x, t = random64(3, 2, seed=1), random64(3, 2, seed=2)
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), [x, t])


def test_mse_loss_values_and_module():
    x, t = minigrad.tensor([1.0, 2.0, 4.0]), minigrad.tensor([1.0, 0.0, 0.0])
    assert F.mse_loss(x, t).item() == pytest.approx(20 / 3)
    assert nn.MSELoss(reduction="sum")(x, t).item() == 20.0
    assert nn.MSELoss(reduction="none")(x, t).tolist() == [0.0, 4.0, 16.0]
    assert F.mse_loss(x.requires_grad_(), t).grad_fn.name() == "MseLossBackward0"


def test_mse_loss_broadcast_warns():
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(minigrad.ones(3, 1), minigrad.ones(3))


def test_invalid_reduction():
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_gradcheck(reduction):
    logits = random64(4, 3)
    target = minigrad.tensor([0, 2, 1, 2])
    assert gradcheck(lambda x: F.cross_entropy(x, target, reduction=reduction), [logits])


def test_cross_entropy_weight_and_ignore_index_gradcheck():
    logits = random64(5, 3)
    target = minigrad.tensor([0, 2, -100, 1, 2])
    weight = minigrad.tensor([0.2, 1.0, 3.0], dtype=minigrad.float64)
    loss = lambda x: F.cross_entropy(x, target, weight=weight)  # noqa: E731
    assert gradcheck(loss, [logits])
    # by hand: weighted mean over the counted samples
    log_p = F.log_softmax(logits, 1).detach().numpy()
    picked = [(0, 0), (1, 2), (3, 1), (4, 2)]
    w = [0.2, 3.0, 1.0, 3.0]
    expected = -sum(wi * log_p[i, c] for wi, (i, c) in zip(w, picked, strict=True)) / sum(w)
    assert loss(logits).item() == pytest.approx(expected)


def test_cross_entropy_graph_and_values():
    logits = minigrad.tensor([[2.0, 0.0], [0.0, 0.0]], requires_grad=True)
    loss = nn.CrossEntropyLoss()(logits, minigrad.tensor([0, 1]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert [n.name() for n, _ in loss.grad_fn.next_functions] == ["LogSoftmaxBackward0"]
    expected = (-math.log(math.exp(2) / (math.exp(2) + 1)) + math.log(2)) / 2
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_cross_entropy_single_sample_without_batch():
    logits = random64(3)
    assert gradcheck(lambda x: F.cross_entropy(x, minigrad.tensor(1)), [logits])


def test_cross_entropy_needs_int64_targets():
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.cross_entropy(minigrad.ones(2, 3), minigrad.tensor([0.0, 1.0]))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(minigrad.ones(2, 3), minigrad.tensor([0, 3]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_gradcheck_input_and_target(reduction):
    x = random64(3, 2)
    t = float64(np.random.default_rng(5).uniform(0, 1, (3, 2)))
    loss = lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction)  # noqa: E731
    assert gradcheck(loss, [x, t])


def test_bce_with_logits_weight_and_pos_weight_gradcheck():
    x = random64(4, 2)
    t = float64(np.random.default_rng(6).uniform(0, 1, (4, 2)))
    weight = float64([0.5, 2.0], requires_grad=False)
    pos_weight = float64([3.0, 0.25], requires_grad=False)
    loss = lambda a, b: F.binary_cross_entropy_with_logits(  # noqa: E731
        a, b, weight=weight, pos_weight=pos_weight
    )
    assert gradcheck(loss, [x, t])


def test_bce_with_logits_is_stable_for_huge_logits():
    x = minigrad.tensor([1000.0, -1000.0, 1000.0, -1000.0], requires_grad=True)
    t = minigrad.tensor([1.0, 0.0, 0.0, 1.0])
    loss = nn.BCEWithLogitsLoss(reduction="none")(x, t)
    assert loss.tolist() == [0.0, 0.0, 1000.0, 1000.0]
    loss.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, -1.0]
    assert loss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"


def test_bce_with_logits_shape_mismatch():
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(minigrad.ones(3, 1), minigrad.ones(3))


def test_loss_nodes_keep_no_output_tensor():
    """A loss node holds arrays, never its output tensor: no reference cycle."""
    x = minigrad.randn(4, 3, requires_grad=True)
    for loss in (
        F.mse_loss(x, minigrad.zeros(4, 3)),
        F.cross_entropy(x, minigrad.tensor([0, 1, 2, 0])),
        F.binary_cross_entropy_with_logits(x, minigrad.zeros(4, 3)),
    ):
        node = loss.grad_fn
        assert all(not isinstance(v, minigrad.Tensor) or v is not loss for v in vars(node).values())


def test_nll_loss_gradcheck_and_graph():
    log_p = random64(4, 3)
    target = minigrad.tensor([2, 0, 1, 1])
    for reduction in ("mean", "sum", "none"):
        assert gradcheck(lambda x, r=reduction: F.nll_loss(x, target, reduction=r), [log_p])
    assert F.nll_loss(log_p, target).grad_fn.next_functions[0][0].name() == "AccumulateGrad"


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_on_probabilities_gradcheck_input_and_target(reduction):
    p = float64(np.random.default_rng(7).uniform(0.05, 0.95, (3, 2)))
    t = float64(np.random.default_rng(8).uniform(0, 1, (3, 2)))
    loss = lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction)  # noqa: E731
    assert gradcheck(loss, [p, t])


def test_bce_on_probabilities_clamps_log_like_torch():
    loss = nn.BCELoss()(minigrad.tensor([0.0, 1.0]), minigrad.tensor([1.0, 0.0]))
    assert loss.item() == 100.0
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(minigrad.tensor([1.5]), minigrad.tensor([1.0]))


def test_leaky_relu_gradcheck_and_module():
    x = float64([[-2.0, -0.5, 0.3, 4.0]])
    assert gradcheck(lambda a: F.leaky_relu(a, 0.2), [x])
    assert nn.LeakyReLU(0.5)(minigrad.tensor([-2.0, 2.0])).tolist() == [-1.0, 2.0]
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert F.leaky_relu(x).grad_fn.name() == "LeakyReluBackward0"


def test_dropout_in_training_and_after_eval():
    minigrad.manual_seed(0)
    layer = nn.Dropout(0.25)
    assert repr(layer) == "Dropout(p=0.25, inplace=False)"
    x = minigrad.ones(200, 10, requires_grad=True)
    out = layer(x)
    values = np.unique(out.detach().numpy()).tolist()
    assert values == [0.0, pytest.approx(1 / 0.75)]
    assert 0.2 < (out.detach().numpy() == 0).mean() < 0.3
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())  # grad = mask
    layer.eval()
    same = layer(x)
    assert same is x  # switched off, but eval() does not turn off recording elsewhere
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_linear_errors_like_torch():
    layer = nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="must have the same dtype, but got Double and Float"):
        layer(minigrad.ones(4, 2, dtype=minigrad.float64))
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(4x3 and 2x3\)"):
        layer(minigrad.ones(4, 3))


def test_cross_entropy_with_every_sample_ignored_is_nan():
    loss = F.cross_entropy(minigrad.ones(2, 3), minigrad.tensor([-100, -100]))
    assert math.isnan(loss.item())


def test_clip_grad_norm_scales_all_gradients_together():
    a, b = minigrad.zeros(2, requires_grad=True), minigrad.zeros(1, requires_grad=True)
    a.grad, b.grad = minigrad.tensor([3.0, 0.0]), minigrad.tensor([4.0])
    frozen = minigrad.zeros(1, requires_grad=True)  # no grad: skipped
    norm = nn.utils.clip_grad_norm_([a, b, frozen], max_norm=1.0)
    assert norm.item() == pytest.approx(5.0)
    assert a.grad.tolist() == pytest.approx([0.6, 0.0], rel=1e-5)
    assert b.grad.tolist() == pytest.approx([0.8], rel=1e-5)
    assert nn.utils.clip_grad_norm_(a, max_norm=10.0).item() == pytest.approx(0.6, rel=1e-5)
    assert a.grad.tolist() == pytest.approx([0.6, 0.0], rel=1e-5)  # under the limit: unchanged
