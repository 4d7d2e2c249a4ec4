"""End-to-end: small models really learn, and the graph-cutting patterns of the course work."""

import time

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad import data
from minigrad.nn.diagnostics import GRAPH_KEPT, ITEM, loss_accumulation_memory


def test_mlp_learns_two_moons(record_property):
    minigrad.manual_seed(0)
    X, y = data.two_moons(200, noise=0.1, seed=0)
    start = time.perf_counter()
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(150):
        loss = loss_fn(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with minigrad.no_grad():
        accuracy = (model(X).argmax(dim=1) == y).float().mean().item()
    seconds = time.perf_counter() - start
    record_property("seconds", seconds)
    assert accuracy >= 0.95
    assert seconds < 5


def test_linear_model_fits_noisy_line(record_property):
    minigrad.manual_seed(0)
    x, y = data.noisy_line(100, slope=2.0, intercept=-1.0, noise=0.1, seed=0)
    start = time.perf_counter()
    model = nn.Linear(1, 1)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for _ in range(100):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
    record_property("seconds", seconds)
    assert model.weight.item() == pytest.approx(2.0, abs=0.05)
    assert model.bias.item() == pytest.approx(-1.0, abs=0.05)
    assert loss.item() < 0.02  # the noise variance is 0.01
    assert seconds < 5


def test_rnn_cell_learns_next_step_with_truncated_bptt():
    minigrad.manual_seed(0)
    inputs, targets = data.toy_sequence(length=50, noise=0.0, seed=0)
    cell, readout = nn.RNNCell(1, 8), nn.Linear(8, 1)
    params = list(cell.parameters()) + list(readout.parameters())
    opt = optim.Adam(params, lr=0.05)
    chunk = 10

    def epoch_loss():
        hidden, total = None, 0.0
        for start in range(0, len(inputs), chunk):
            if hidden is not None:
                hidden = hidden.detach()  # truncate: the next chunk does not reach back
            loss = 0.0
            for t in range(start, start + chunk):
                hidden = cell(inputs[t : t + 1], hidden)
                loss = loss + F.mse_loss(readout(hidden), targets[t : t + 1])
            opt.zero_grad()
            loss.backward()  # without the detach above, this would reach into freed graphs
            opt.step()
            total += loss.item()
        return total / len(inputs)

    first = epoch_loss()
    for _ in range(7):
        last = epoch_loss()
    assert last < first / 20


def test_bptt_without_detach_reaches_into_the_freed_previous_chunk():
    cell = nn.RNNCell(1, 4)
    hidden = cell(minigrad.ones(1, 1))
    hidden.sum().backward()  # frees the first chunk's saved values
    hidden = cell(minigrad.ones(1, 1), hidden)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        hidden.sum().backward()


# ---- freezing and detach ---------------------------------------------------------------------


def two_layer_model():
    minigrad.manual_seed(1)
    return nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))


def test_frozen_layer_gets_no_grad_and_optimizer_leaves_it():
    model = two_layer_model()
    model[0].requires_grad_(False)
    frozen_before = [p.tolist() for p in model[0].parameters()]
    trained_before = model[2].weight.tolist()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1)
    for _ in range(3):
        loss = model(minigrad.ones(5, 2)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert all(p.grad is None for p in model[0].parameters())
    assert [p.tolist() for p in model[0].parameters()] == frozen_before
    assert model[2].weight.grad is not None and model[2].weight.tolist() != trained_before
    # the frozen first layer's Addmm is not even recorded: its output needs no grad
    assert model[0](minigrad.ones(1, 2)).grad_fn is None


def test_detach_of_layer_output_stops_gradients_to_everything_before():
    model = two_layer_model()
    x = minigrad.ones(3, 2, requires_grad=True)
    features = model[1](model[0](x)).detach()
    model[2](features).sum().backward()
    assert model[2].weight.grad is not None and model[2].bias.grad is not None
    assert model[0].weight.grad is None and model[0].bias.grad is None and x.grad is None
    # the parameters before the cut still require grad: only this graph was cut
    assert model[0].weight.requires_grad


def test_no_grad_forward_records_nothing():
    model = two_layer_model()
    with minigrad.no_grad():
        out = model(minigrad.ones(3, 2))
    assert out.grad_fn is None and not out.requires_grad


def test_gan_style_discriminator_step_with_detached_fake():
    minigrad.manual_seed(2)
    generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
    fake = generator(minigrad.randn(4, 2))
    critic_loss = F.binary_cross_entropy_with_logits(critic(fake.detach()), minigrad.zeros(4, 1))
    critic_loss.backward()
    assert critic.weight.grad is not None and generator.weight.grad is None
    # the generator's graph is still intact and usable for its own step
    F.binary_cross_entropy_with_logits(critic(fake), minigrad.ones(4, 1)).backward()
    assert generator.weight.grad is not None


def test_target_network_by_load_state_dict_and_ema_update():
    minigrad.manual_seed(3)
    online, target = nn.Linear(3, 2), nn.Linear(3, 2)
    target.load_state_dict(online.state_dict())
    target.requires_grad_(False)
    opt = optim.SGD(online.parameters(), lr=0.5)
    loss = F.mse_loss(online(minigrad.ones(4, 3)), target(minigrad.ones(4, 3)) + 1)
    loss.backward()
    opt.step()
    assert target.weight.grad is None
    assert not np.allclose(online.weight.detach().numpy(), target.weight.numpy())
    with minigrad.no_grad():  # EMA, as BYOL/DQN-style code writes it
        for t, o in zip(target.parameters(), online.parameters(), strict=True):
            t.mul_(0.9).add_(o, alpha=0.1)
    assert target.weight._version > 0 and not target.weight.requires_grad


# ---- memory: the loss-accumulation bug ---------------------------------------------------------


def test_accumulating_the_loss_tensor_keeps_every_graph_alive():
    curves = loss_accumulation_memory(steps=30, batch_size=32, hidden=32)
    kept, item = curves[GRAPH_KEPT], curves[ITEM]
    assert len(kept) == len(item) == 30
    # every step's nodes stay reachable from `total`: steady growth, several KiB a step
    growth_kept = kept[-1] - kept[9]
    assert growth_kept > 20 * 2048
    assert all(later > earlier for earlier, later in zip(kept[9::5], kept[14::5], strict=False))
    # with .item() memory is flat after the first steps
    growth_item = item[-1] - item[9]
    assert growth_item < 16 * 1024
    assert growth_kept > 10 * growth_item


def test_without_backward_the_saved_activations_pile_up_too():
    curves = loss_accumulation_memory(steps=15, batch_size=64, hidden=64, backward=False)
    kept, item = curves[GRAPH_KEPT], curves[ITEM]
    # ReLU's 64x64 float32 output (16 KiB) and more is saved per step and never freed
    assert kept[-1] - kept[4] > 10 * 16 * 1024
    assert item[-1] - item[4] < 16 * 1024
