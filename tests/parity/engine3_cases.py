# ruff: noqa: E501 - a table of one-line cases reads better unwrapped
"""The engine-3 parity table: hooks, custom Functions, create_graph, saved tensors, views under
grad modes, and the names minigrad 3 added, each compared with torch 2.13 (edge_harness.py).

The custom Functions (`Square`, `GradReverse`, ...) come from engine3_defs.py, written once
for both libraries. `x` is a float leaf that requires grad, `m` a 2x3 one.
"""

from __future__ import annotations

X = "x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)"
XD = "x = L.tensor([0.5, -1.5, 2.0], dtype=L.float64, requires_grad=True)"
M = "m = L.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)"
G2 = "g, = L.autograd.grad(y, x, create_graph=True); gg, = L.autograd.grad(g.sum(), x)"

HOOKS: list[tuple[str, str]] = [
    (
        "hook-leaf-replaces",
        f"{X}; h = x.register_hook(lambda g: g * 2); (x * 3).sum().backward(); x.grad",
    ),
    (
        "hook-leaf-none-keeps",
        f"{X}; h = x.register_hook(lambda g: None); (x * 3).sum().backward(); x.grad",
    ),
    (
        "hook-nonleaf-replaces",
        f"{X}; b = x * 3; h = b.register_hook(lambda g: g + 1); b.sum().backward(); x.grad",
    ),
    (
        "hook-nonleaf-sees-grad",
        f"{X}; b = x * 3; seen = []; h = b.register_hook(lambda g: seen.append(g.clone())); (b * b).sum().backward(); seen[0]",
    ),
    (
        "hook-order",
        f"{X}; b = x * 3; log = []; h1 = b.register_hook(lambda g: log.append(1)); h2 = b.register_hook(lambda g: log.append(2)); b.sum().backward(); log",
    ),
    (
        "hook-chain-of-two",
        f"{X}; b = x * 3; h1 = b.register_hook(lambda g: g * 2); h2 = b.register_hook(lambda g: g + 1); b.sum().backward(); x.grad",
    ),
    (
        "hook-remove",
        f"{X}; h = x.register_hook(lambda g: g * 100); h.remove(); (x * 3).sum().backward(); x.grad",
    ),
    (
        "hook-remove-twice",
        f"{X}; h = x.register_hook(lambda g: g * 100); h.remove(); h.remove(); (x * 3).sum().backward(); x.grad",
    ),
    (
        "hook-handle-context",
        f"{X}\nwith x.register_hook(lambda g: g * 100): pass\n(x * 3).sum().backward(); x.grad",
    ),
    ("hook-no-grad-tensor", "L.ones(3).register_hook(lambda g: g)"),
    ("hook-int-tensor", "L.tensor([1, 2]).register_hook(lambda g: g)"),
    ("hook-returns-int", f"{X}; b = x * 2; h = b.register_hook(lambda g: 5); b.sum().backward()"),
    (
        "hook-changes-size",
        f"{X}; b = x * 2; h = b.register_hook(lambda g: L.ones(4)); b.sum().backward()",
    ),
    (
        "hook-changes-dtype",
        f"{X}; b = x * 2; h = b.register_hook(lambda g: g.double()); b.sum().backward()",
    ),
    (
        "hook-returns-list",
        f"{X}; b = x * 2; h = b.register_hook(lambda g: [1.0, 2.0, 3.0]); b.sum().backward()",
    ),
    (
        "hook-runs-twice-retain",
        f"{X}; b = x * 3; n = []; h = b.register_hook(lambda g: n.append(1)); s = b.sum(); s.backward(retain_graph=True); s.backward(); (len(n), x.grad)",
    ),
    (
        "hook-in-place-grad",
        f"{X}; b = x * 3; h = b.register_hook(lambda g: g.mul_(2)); (b * 1).sum().backward(); x.grad",
    ),
    (
        "hook-sees-no-grad-mode",
        f"{X}; b = x * 3; seen = []; h = b.register_hook(lambda g: seen.append(L.is_grad_enabled())); b.sum().backward(); seen",
    ),
    (
        "hook-create-graph-mode",
        f"{X}; b = x * x; seen = []; h = b.register_hook(lambda g: seen.append((L.is_grad_enabled(), g.requires_grad))); g, = L.autograd.grad(b.sum(), x, create_graph=True); seen",
    ),
    (
        "hook-after-inplace-old",
        f"{X}; d = x * 2; seen = []; h = d.register_hook(lambda g: seen.append(g.clone())); d.mul_(3); d.sum().backward(); seen[0]",
    ),
    (
        "hook-after-inplace-new",
        f"{X}; d = x * 2; d.mul_(3); seen = []; h = d.register_hook(lambda g: seen.append(g.clone())); d.sum().backward(); seen[0]",
    ),
    (
        "hook-leaf-with-grad-fn",
        f"{X}; h = x.register_hook(lambda g: g * 10); g, = L.autograd.grad((x * 3).sum(), x); g",
    ),
    (
        "hook-nonleaf-in-grad",
        f"{X}; b = x * 3; h = b.register_hook(lambda g: g * 100); L.autograd.grad((b * b).sum(), [b, x])",
    ),
    (
        "hook-sum-of-two-paths",
        f"{X}; b = x * 2; h = b.register_hook(lambda g: g * 10); (b * b + b).sum().backward(); x.grad",
    ),
    (
        "hook-view",
        f"{X}; b = x * 2; v = b[1:]; h = v.register_hook(lambda g: g * 10); v.sum().backward(); x.grad",
    ),
    ("hook-detached-tensor", f"{X}; d = x.detach(); d.register_hook(lambda g: g)"),
    (
        "hook-requires-grad-then-hook",
        f"{X}; d = x.detach().requires_grad_(); h = d.register_hook(lambda g: g * 3); (d * 2).sum().backward(); d.grad",
    ),
    ("retain-grad-basic", f"{X}; b = x * 3; b.retain_grad(); (b * b).sum().backward(); b.grad"),
    (
        "retain-grad-flag",
        f"{X}; b = x * 3; before = b.retains_grad; b.retain_grad(); (before, b.retains_grad, x.retains_grad)",
    ),
    ("retain-grad-leaf-flag", f"{X}; x.retain_grad(); x.retains_grad"),
    ("retain-grad-no-grad", "L.ones(2).retain_grad()"),
    (
        "retain-grad-after-hook",
        f"{X}; b = x * 3; b.retain_grad(); h = b.register_hook(lambda g: g * 10); b.sum().backward(); b.grad",
    ),
    (
        "retain-grad-accumulates",
        f"{X}; b = x * 3; b.retain_grad(); s = b.sum(); s.backward(retain_graph=True); s.backward(); b.grad",
    ),
    (
        "retain-grad-inplace-follows",
        f"{X}; b = x * 3; b.retain_grad(); b.mul_(2); b.sum().backward(); (b.grad, b.retains_grad)",
    ),
    ("retain-grad-detach_", f"{X}; b = x * 3; b.retain_grad(); b.detach_(); b.retains_grad"),
    (
        "post-acc-hook",
        f"{X}; seen = []; h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone())); (x * 3).sum().backward(); seen[0]",
    ),
    (
        "post-acc-hook-after-hook",
        f"{X}; seen = []; h1 = x.register_hook(lambda g: g * 2); h2 = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone())); (x * 3).sum().backward(); seen[0]",
    ),
    ("post-acc-hook-nonleaf", f"{X}; (x * 2).register_post_accumulate_grad_hook(lambda t: None)"),
    ("post-acc-hook-no-grad", "L.ones(2).register_post_accumulate_grad_hook(lambda t: None)"),
    (
        "post-acc-hook-sgd-in-backward",
        f"{X}\ndef step(t):\n    with L.no_grad():\n        t.sub_(0.1 * t.grad)\n    t.grad = None\nh = x.register_post_accumulate_grad_hook(step); (x * x).sum().backward(); (x, x.grad)",
    ),
    (
        "post-acc-not-in-grad",
        f"{X}; seen = []; h = x.register_post_accumulate_grad_hook(lambda t: seen.append(1)); L.autograd.grad((x * 3).sum(), x); seen",
    ),
    (
        "node-hook",
        f"{X}; d = x * 2; seen = []; h = d.grad_fn.register_hook(lambda gi, go: seen.append((gi, go))); d.sum().backward(); seen[0]",
    ),
    (
        "node-hook-replaces",
        f"{X}; d = x * 2; h = d.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None)); d.sum().backward(); x.grad",
    ),
    (
        "node-hook-wrong-count",
        f"{X}; d = x * 2; h = d.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,)); d.sum().backward()",
    ),
    (
        "node-prehook",
        f"{X}; d = x * 2; seen = []; h = d.grad_fn.register_prehook(lambda go: seen.append(go)); d.sum().backward(); seen[0]",
    ),
    (
        "node-prehook-replaces",
        f"{X}; d = x * 2; h = d.grad_fn.register_prehook(lambda go: (go[0] * 7,)); d.sum().backward(); x.grad",
    ),
    (
        "node-hook-remove",
        f"{X}; d = x * 2; h = d.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None)); h.remove(); d.sum().backward(); x.grad",
    ),
    (
        "node-hook-two-inputs",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); d = x * y; seen = []; h = d.grad_fn.register_hook(lambda gi, go: seen.append(len(gi))); d.sum().backward(); seen",
    ),
    (
        "backward-inputs-leaf",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); (x * y).sum().backward(inputs=[x]); (x.grad, y.grad)",
    ),
    (
        "backward-inputs-single",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); (x * y).sum().backward(inputs=y); (x.grad, y.grad)",
    ),
    (
        "backward-inputs-nonleaf",
        f"{X}; c = x * 2; (c * c).sum().backward(inputs=[c]); (c.grad, x.grad)",
    ),
    ("backward-inputs-empty", f"{X}; (x * 2).sum().backward(inputs=[])"),
    ("backward-inputs-no-grad", f"{X}; (x * 2).sum().backward(inputs=[L.ones(3)])"),
    (
        "backward-inputs-unused",
        f"{X}; y = L.tensor([4.0], requires_grad=True); (x * 2).sum().backward(inputs=[y]); y.grad",
    ),
    (
        "autograd-backward-inputs",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); L.autograd.backward((x * y).sum(), inputs=[y]); (x.grad, y.grad)",
    ),
]

FUNCTIONS: list[tuple[str, str]] = [
    ("fn-square", f"{X}; y = Square.apply(x); y.sum().backward(); (y, x.grad)"),
    ("fn-name", f"{X}; Square.apply(x).grad_fn.name()"),
    (
        "fn-next-functions",
        f"{X}; n = GradReverse.apply(x, 2.0).grad_fn.next_functions; (len(n), n[0][1], n[0][0].name().split(':')[-1])",
    ),
    ("fn-no-grad-input", "Square.apply(L.ones(3))"),
    (
        "fn-under-no-grad",
        f"{X}\nwith L.no_grad():\n    y = Square.apply(x)\n(y.requires_grad, y.grad_fn)",
    ),
    ("fn-ste", f"{X}; y = RoundSTE.apply(x * 0.6); y.sum().backward(); (y, x.grad)"),
    ("fn-grad-reverse", f"{X}; y = GradReverse.apply(x, 0.5); (y * y).sum().backward(); x.grad"),
    ("fn-needs-input-grad", f"{X}; y = L.ones(3); out = Needs.apply(x, y, 2.0); out.grad_fn.seen"),
    (
        "fn-needs-input-grad-2",
        f"{X}; y = L.ones(3, requires_grad=True); out = Needs.apply(y, x, 2.0); out.grad_fn.seen",
    ),
    (
        "fn-dirty",
        f"{X}; b = x * 1; c = DirtyDouble.apply(b); (c is b, c.grad_fn.name(), b._version)",
    ),
    ("fn-dirty-grad", f"{X}; b = x * 1; c = DirtyDouble.apply(b); c.sum().backward(); x.grad"),
    ("fn-dirty-leaf", f"{X}; DirtyDouble.apply(x)"),
    (
        "fn-two-outputs",
        f"{X}; a, b = TwoOutputs.apply(x); (a.sum() + b.sum()).backward(); (a.grad_fn is b.grad_fn, x.grad)",
    ),
    ("fn-two-outputs-one-used", f"{X}; a, b = TwoOutputs.apply(x); b.sum().backward(); x.grad"),
    ("fn-two-outputs-output-nr", f"{X}; a, b = TwoOutputs.apply(x); (a.output_nr, b.output_nr)"),
    (
        "fn-non-diff-flag",
        f"{X}; out, mask = NonDiff.apply(x); (out.requires_grad, mask.requires_grad, mask.grad_fn)",
    ),
    ("fn-non-diff-grad", f"{X}; out, mask = NonDiff.apply(x); out.sum().backward(); x.grad"),
    (
        "fn-passthrough",
        f"{X}; y = Passthrough.apply(x); (y is x, y.grad_fn.name(), y._base is None)",
    ),
    ("fn-passthrough-grad", f"{X}; y = Passthrough.apply(x); y.sum().backward(); x.grad"),
    ("fn-too-few-grads", f"{X}; TooFew.apply(x, x).sum().backward()"),
    ("fn-wrong-shape", f"{X}; WrongShape.apply(x).backward()"),
    ("fn-saved-output", f"{X}; y = SaveOutput.apply(x); y.sum().backward(); x.grad"),
    ("fn-saved-output-inplace", f"{X}; y = SaveOutput.apply(x); y.mul_(2); y.sum().backward()"),
    (
        "fn-saved-input-inplace",
        f"{X}; b = x * 1; y = Square.apply(b); b.add_(1); y.sum().backward()",
    ),
    (
        "fn-saved-input-data-silent",
        f"{X}; b = x * 1; y = Square.apply(b); b.data.add_(1); y.sum().backward(); x.grad",
    ),
    ("fn-save-number", f"{X}; SaveNumber.apply(x)"),
    (
        "fn-saved-after-backward",
        f"{X}; y = Square.apply(x); y.sum().backward(); y.grad_fn.saved_tensors",
    ),
    (
        "fn-saved-retain",
        f"{X}; y = Square.apply(x); y.sum().backward(retain_graph=True); len(y.grad_fn.saved_tensors)",
    ),
    ("fn-backward-twice", f"{X}; y = Square.apply(x); s = y.sum(); s.backward(); s.backward()"),
    ("fn-once-first-order", f"{X}; y = Once.apply(x); y.sum().backward(); x.grad"),
    (
        "fn-once-create-graph",
        f"{XD}; y = Once.apply(x); g, = L.autograd.grad(y.sum(), x, create_graph=True); g.requires_grad",
    ),
    (
        "fn-once-double",
        f"{XD}; y = Once.apply(x); g, = L.autograd.grad(y.sum(), x, create_graph=True); g.sum().backward()",
    ),
    (
        "fn-once-double-graph",
        f"{XD}; y = Once.apply(x); g, = L.autograd.grad((y * y).sum(), x, create_graph=True); g.sum().backward()",
    ),
    (
        "fn-once-double-graph-name",
        f"{XD}; y = Once.apply(x); g, = L.autograd.grad((y * y).sum(), x, create_graph=True); (g.requires_grad, g.grad_fn.name().split(':')[-1])",
    ),
    (
        "fn-no-materialize",
        f"{X}; a, b = NoMaterialize.apply(x); a.sum().backward(); (a.grad_fn.got_none, x.grad)",
    ),
    (
        "fn-new-style",
        f"{X}; y = NewStyle.apply(x, 4.0); y.sum().backward(); (y.grad_fn.name(), x.grad)",
    ),
    ("fn-cube-double", f"{XD}; y = Cube.apply(x); {G2}; (g, gg)"),
    ("fn-square-double", f"{XD}; y = Square.apply(x).sum(); {G2}; gg"),
    ("fn-no-backward", f"{X}; NoBackward.apply(x).sum().backward()"),
    ("fn-mixed-with-ops", f"{X}; y = Square.apply(x.sigmoid()) * 2; y.sum().backward(); x.grad"),
    ("fn-version-of-output", f"{X}; y = Square.apply(x); y._version"),
    ("fn-output-is-leaf", f"{X}; y = Square.apply(x); (y.is_leaf, y.requires_grad)"),
]

CREATE_GRAPH: list[tuple[str, str]] = [
    ("cg-cube", f"{XD}; y = (x ** 3).sum(); {G2}; (g, gg)"),
    (
        "cg-grad-flags",
        f"{XD}; g, = L.autograd.grad((x ** 3).sum(), x, create_graph=True); (g.requires_grad, g.is_leaf)",
    ),
    (
        "cg-no-create-graph-flags",
        f"{XD}; g, = L.autograd.grad((x ** 3).sum(), x); (g.requires_grad, g.grad_fn)",
    ),
    (
        "cg-backward-grad-fn",
        f"{XD}; (x ** 3).sum().backward(create_graph=True); (x.grad.requires_grad, x.grad.grad_fn.name().split(':')[-1])",
    ),
    (
        "cg-backward-twice-add",
        f"{XD}; (x ** 3).sum().backward(create_graph=True); (x ** 3).sum().backward(create_graph=True); x.grad.grad_fn.name()",
    ),
    (
        "cg-backward-then-grad",
        f"{XD}; (x ** 3).sum().backward(create_graph=True); gg, = L.autograd.grad(x.grad.sum(), x); gg",
    ),
    (
        "cg-retains-graph",
        f"{XD}; y = (x ** 3).sum(); g, = L.autograd.grad(y, x, create_graph=True); g2, = L.autograd.grad(y, x); g2",
    ),
    (
        "cg-linear-constant",
        f"{XD}; g, = L.autograd.grad((x * 2).sum(), x, create_graph=True); (g, g.requires_grad)",
    ),
    ("cg-sigmoid", f"{XD}; y = x.sigmoid().sum(); {G2}; (g, gg)"),
    ("cg-tanh", f"{XD}; y = x.tanh().sum(); {G2}; gg"),
    ("cg-exp", f"{XD}; y = x.exp().sum(); {G2}; gg"),
    ("cg-log", f"{XD}; y = (x * x + 1).log().sum(); {G2}; gg"),
    ("cg-relu", f"{XD}; y = (x.relu() ** 2).sum(); {G2}; gg"),
    ("cg-sqrt", f"{XD}; y = (x * x + 1).sqrt().sum(); {G2}; gg"),
    ("cg-abs", f"{XD}; y = (x.abs() ** 3).sum(); {G2}; gg"),
    ("cg-div", f"{XD}; y = (1 / (x * x + 1)).sum(); {G2}; gg"),
    ("cg-div-tensors", f"{XD}; y = (x / (x + 3)).sum(); {G2}; gg"),
    ("cg-pow-tensor", f"{XD}; y = ((x * x + 1) ** (x * 0.5)).sum(); {G2}; gg"),
    ("cg-rpow", f"{XD}; y = (2 ** x).sum(); {G2}; gg"),
    ("cg-mul-self", f"{XD}; y = (x * x * x).sum(); {G2}; gg"),
    ("cg-sub-neg", f"{XD}; y = ((1 - x) ** 2 - x).sum(); {G2}; gg"),
    ("cg-mean", f"{XD}; y = (x ** 2).mean(); {G2}; gg"),
    (
        "cg-sum-dim",
        f"{M}; m2 = m.double(); y = (m2 ** 3).sum(1).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad(g.sum(), m); gg",
    ),
    ("cg-max", f"{XD}; y = (x ** 2).max(); {G2}; gg"),
    (
        "cg-matmul",
        f"{XD}; W = L.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=L.float64, requires_grad=True); y = ((W @ x) ** 2).sum(); g, = L.autograd.grad(y, W, create_graph=True); gg, = L.autograd.grad(g.sum(), x); gg",
    ),
    (
        "cg-mm",
        f"{M}; a = m.double(); y = ((a @ a.t()) ** 2).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad((g * g).sum(), m); gg",
    ),
    (
        "cg-softmax",
        f"{M}; a = m.double(); y = (F.softmax(a, dim=1) ** 2).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad(g.sum(), m); gg",
    ),
    (
        "cg-log-softmax",
        f"{M}; a = m.double(); y = (F.log_softmax(a, dim=1) ** 2).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad(g.sum(), m); gg",
    ),
    (
        "cg-mse",
        f"{XD}; t = L.tensor([1.0, 0.0, 2.0], dtype=L.float64); y = F.mse_loss(x * x, t); {G2}; gg",
    ),
    (
        "cg-bce-logits",
        f"{XD}; t = L.tensor([1.0, 0.0, 1.0], dtype=L.float64); y = F.binary_cross_entropy_with_logits(x, t); {G2}; gg",
    ),
    ("cg-slice", f"{XD}; y = (x[1:] ** 3).sum(); {G2}; gg"),
    ("cg-select", f"{XD}; y = x[0] ** 3 + x[2] ** 2; {G2}; gg"),
    (
        "cg-view",
        f"{M}; a = m.double(); y = (a.view(3, 2) ** 3).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad(g.sum(), m); gg",
    ),
    (
        "cg-transpose",
        f"{M}; a = m.double(); y = (a.t() ** 3).sum(); g, = L.autograd.grad(y, m, create_graph=True); gg, = L.autograd.grad(g.sum(), m); gg",
    ),
    ("cg-expand", f"{XD}; y = (x.expand(2, 3) ** 3).sum(); {G2}; gg"),
    ("cg-index", f"{XD}; y = (x[[0, 2, 2]] ** 3).sum(); {G2}; gg"),
    ("cg-cat", f"{XD}; y = (L.cat([x, x * 2]) ** 3).sum(); {G2}; gg"),
    ("cg-stack", f"{XD}; y = (L.stack([x, x * 2]) ** 3).sum(); {G2}; gg"),
    ("cg-clamp", f"{XD}; y = (x.clamp(-1, 1) ** 3).sum(); {G2}; gg"),
    ("cg-where", f"{XD}; y = L.where(x > 0, x ** 3, x ** 2).sum(); {G2}; gg"),
    (
        "cg-gradient-penalty",
        f"{XD}; w = L.tensor([0.3, -0.2, 0.1], dtype=L.float64, requires_grad=True); out = (w * x).tanh().sum(); gx, = L.autograd.grad(out, x, create_graph=True); penalty = ((gx.norm() - 1) ** 2); penalty.backward(); w.grad",
    ),
    (
        "cg-maml-second-order",
        f"{XD}; w = L.tensor([0.3, -0.2, 0.1], dtype=L.float64, requires_grad=True); inner = ((w * x).sum() - 1) ** 2; gw, = L.autograd.grad(inner, w, create_graph=True); w2 = w - 0.1 * gw; outer = ((w2 * x).sum() - 2) ** 2; outer.backward(); w.grad",
    ),
    (
        "cg-maml-first-order",
        f"{XD}; w = L.tensor([0.3, -0.2, 0.1], dtype=L.float64, requires_grad=True); inner = ((w * x).sum() - 1) ** 2; gw, = L.autograd.grad(inner, w, create_graph=True); w2 = w - 0.1 * gw.detach(); outer = ((w2 * x).sum() - 2) ** 2; outer.backward(); w.grad",
    ),
    (
        "cg-third-order",
        f"{XD}; y = (x ** 4).sum(); g, = L.autograd.grad(y, x, create_graph=True); gg, = L.autograd.grad(g.sum(), x, create_graph=True); ggg, = L.autograd.grad(gg.sum(), x); ggg",
    ),
    (
        "cg-hessian-vector",
        f"{XD}; v = L.tensor([1.0, 0.0, -1.0], dtype=L.float64); y = (x.sin() if hasattr(x, 'sin') else x.tanh()).sum() if False else (x.tanh() * x).sum(); g, = L.autograd.grad(y, x, create_graph=True); hv, = L.autograd.grad((g * v).sum(), x); hv",
    ),
    (
        "cg-grad-outputs-with-graph",
        f"{XD}; v = (x * 2).detach().requires_grad_(); y = x ** 2; g, = L.autograd.grad(y, x, grad_outputs=v, create_graph=True); gv, = L.autograd.grad(g.sum(), v); gv",
    ),
    (
        "cg-allow-unused",
        f"{XD}; z = L.tensor([1.0], dtype=L.float64, requires_grad=True); L.autograd.grad((x ** 2).sum(), [x, z], allow_unused=True, create_graph=True)[1]",
    ),
    (
        "cg-materialize",
        f"{XD}; z = L.tensor([1.0], dtype=L.float64, requires_grad=True); L.autograd.grad((x ** 2).sum(), [x, z], materialize_grads=True)[1]",
    ),
    (
        "cg-unused-error",
        f"{XD}; z = L.tensor([1.0], dtype=L.float64, requires_grad=True); L.autograd.grad((x ** 2).sum(), [x, z])",
    ),
    ("cg-no-requires", f"{XD}; L.autograd.grad((x ** 2).sum(), L.ones(3))"),
    (
        "cg-freed-second",
        f"{XD}; y = (x ** 3).sum(); g, = L.autograd.grad(y, x); L.autograd.grad(y, x)",
    ),
    (
        "cg-retain-false",
        f"{XD}; y = (x ** 3).sum(); g, = L.autograd.grad(y, x, create_graph=True, retain_graph=False); L.autograd.grad(y, x)",
    ),
    ("cg-float32", f"{X}; y = (x ** 3).sum(); {G2}; gg"),
    (
        "cg-nonleaf-input",
        f"{XD}; b = x * 2; y = (b ** 3).sum(); g, = L.autograd.grad(y, b, create_graph=True); gg, = L.autograd.grad(g.sum(), x); gg",
    ),
    (
        "cg-saved-inplace-error",
        f"{XD}; b = x * 1; y = (b ** 3).sum(); g, = L.autograd.grad(y, x, create_graph=True); b.add_(1); L.autograd.grad(g.sum(), x)",
    ),
    (
        "cg-warns-backward",
        f"{XD}\nimport warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n    (x ** 3).sum().backward(create_graph=True)\nlen(w) > 0",
    ),
]

SAVED: list[tuple[str, str]] = [
    (
        "saved-self-is-input",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); b = x * y; b.grad_fn._saved_self is x",
    ),
    (
        "saved-other",
        f"{X}; y = L.tensor([4.0, 5.0, 6.0], requires_grad=True); (x * y).grad_fn._saved_other",
    ),
    ("saved-number", f"{X}; (x * L.tensor(2.0)).grad_fn._saved_other"),
    ("saved-not-saved", f"{X}; (x * L.tensor(2.0)).grad_fn._saved_self"),
    ("saved-result", f"{X}; x.sigmoid().grad_fn._saved_result"),
    (
        "saved-result-is-new",
        f"{X}; b = x.sigmoid(); r = b.grad_fn._saved_result; (r is b, r.grad_fn.name())",
    ),
    (
        "saved-result-after-backward",
        f"{X}; b = x.exp(); b.sum().backward(); b.grad_fn._saved_result",
    ),
    ("saved-exponent", f"{X}; (x ** x).grad_fn._saved_exponent"),
    ("saved-mat2", f"{M}; (m @ m.t()).grad_fn._saved_mat2"),
    ("saved-missing-attr", f"{X}; x.exp().grad_fn._saved_banana"),
    (
        "pack-hooks-calls",
        f"{X}\nlog = []\nwith L.autograd.graph.saved_tensors_hooks(lambda t: log.append('pack') or t, lambda t: log.append('unpack') or t):\n    y = (x * x).sum()\ny.backward(); log",
    ),
    (
        "pack-hooks-copy-protects",
        f"{X}; b = x * 1\nwith L.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):\n    y = (b * b).sum()\nwith L.no_grad(): b.add_(10)\ny.backward(); x.grad",
    ),
    (
        "pack-hooks-unpack-non-tensor",
        f"{X}\nwith L.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda t: 5):\n    y = (x * x).sum()\ny.backward()",
    ),
    (
        "pack-hooks-output",
        f"{X}\nseen = []\nwith L.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.grad_fn is not None) or t, lambda t: t):\n    y = x.exp()\nseen",
    ),
    (
        "pack-hooks-outside-not-used",
        f"{X}\nlog = []\nwith L.autograd.graph.saved_tensors_hooks(lambda t: log.append(1) or t, lambda t: t):\n    pass\n(x * x).sum().backward(); log",
    ),
    (
        "pack-hooks-scaled-unpack",
        f"{X}\nwith L.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t * 2):\n    y = (x * x).sum()\ny.backward(); x.grad",
    ),
    (
        "pack-hooks-function",
        f"{X}\nlog = []\nwith L.autograd.graph.saved_tensors_hooks(lambda t: log.append('p') or t, lambda t: log.append('u') or t):\n    y = Square.apply(x)\ny.sum().backward(); log",
    ),
    ("detach_-saved-input", f"{X}; b = x * 2; s = (b ** 2).sum(); b.detach_(); s.backward()"),
    (
        "detach_-saved-output-ok",
        f"{X}; b = x.exp(); s = b.sum(); b.detach_(); s.backward(); x.grad",
    ),
    ("detach_-unsaved-ok", f"{X}; b = x * 2; c = b.sum(); b.detach_(); c.backward(); x.grad"),
    ("detach_-saved-leaf-ok", f"{X}; y = (x * x).sum(); x.detach_(); y.backward(); x.grad"),
    (
        "detach_-saved-grad-fn-access",
        f"{X}; b = x * 2; c = b * b; b.detach_(); c.grad_fn._saved_self",
    ),
    ("data-ptr-alias", f"{X}; x.data_ptr() == x.detach().data_ptr() == x.data.data_ptr()"),
    ("data-ptr-view-offset", f"{X}; x[1:].data_ptr() - x.data_ptr()"),
    ("data-ptr-clone", f"{X}; x.clone().data_ptr() != x.data_ptr()"),
    (
        "storage-shared",
        f"{X}; x.untyped_storage().data_ptr() == x[1:].untyped_storage().data_ptr()",
    ),
    ("storage-nbytes", "L.ones(3).untyped_storage().nbytes()"),
    ("contiguous-t", f"{M}; (m.t().is_contiguous(), m.is_contiguous())"),
    ("contiguous-same", f"{M}; m.contiguous() is m"),
    ("contiguous-copy", f"{M}; m.t().contiguous()"),
    ("contiguous-expand", f"{X}; x.expand(2, 3).is_contiguous()"),
    ("contiguous-1d-t", f"{X}; x.t().is_contiguous()"),
]

VIEWS: list[tuple[str, str]] = [
    (
        "ng-view-flags",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\n(v.requires_grad, v.is_leaf, v.grad_fn, v._base is a)",
    ),
    (
        "ng-view-version",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\n    v.mul_(2)\n(v._version, a._version, a)",
    ),
    ("ng-view-inplace-error", f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\nv.mul_(2)"),
    ("ng-view-of-leaf-error", f"{X}\nwith L.no_grad():\n    v = x[1:]\nv.mul_(2)"),
    ("ng-view-of-leaf-ok-nograd", f"{X}\nwith L.no_grad():\n    v = x[1:]\n    v.mul_(2)\nx"),
    ("ng-view-no-grad-base-ok", "z = L.zeros(3)\nwith L.no_grad():\n    v = z[1:]\nv.mul_(2)"),
    (
        "ng-view-no-grad-base-copy-error",
        f"{X}; z = L.zeros(3)\nwith L.no_grad():\n    v = z[1:]\nv.copy_(x[1:])",
    ),
    (
        "ng-view-of-view-error",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\nvv = v[1:]; vv.mul_(2)",
    ),
    (
        "ng-view-of-view-flags",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\nvv = v[1:]; (vv.requires_grad, vv.grad_fn.name(), vv.is_leaf)",
    ),
    (
        "ng-view-view-op-error",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\nvv = v.view(2); vv.mul_(2)",
    ),
    (
        "ng-view-used-in-op",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\ny = (v * 2).sum(); y.backward(); (y.grad_fn.next_functions[0][0].next_functions, x.grad)",
    ),
    (
        "ng-view-requires-grad-false",
        f"{X}\nwith L.no_grad():\n    w = x[1:]\nw.requires_grad_(False); w.requires_grad",
    ),
    ("ng-view-detach_", f"{X}; a = x * 2\nwith L.no_grad():\n    v = a[1:]\nv.detach_()"),
    (
        "ng-view-reshape",
        f"{X}; a = x * 2\nwith L.no_grad():\n    v = a.view(3, 1)\n(v.requires_grad, v.grad_fn)",
    ),
    ("ng-result-not-view", f"{X}\nwith L.no_grad():\n    r = x * 2\n(r.requires_grad, r.is_leaf)"),
    (
        "inf-view-flags",
        f"{X}; a = x * 2\nwith L.inference_mode():\n    v = a[1:]\n(v.requires_grad, v.is_inference(), v.grad_fn)",
    ),
    (
        "inf-view-inplace-error",
        f"{X}; a = x * 2\nwith L.inference_mode():\n    v = a[1:]\nv.mul_(2)",
    ),
    (
        "inf-view-of-view-error",
        f"{X}; a = x * 2\nwith L.inference_mode():\n    v = a[1:]\nvv = v[1:]; vv.mul_(2)",
    ),
    (
        "inf-view-no-grad-base-ok",
        "z = L.zeros(3)\nwith L.inference_mode():\n    v = z[1:]\nv.mul_(2)",
    ),
    ("inf-tensor-view-inplace", "with L.inference_mode():\n    i = L.ones(3)\ni[1:].mul_(2)"),
    ("unbind-inplace-error", f"{M}; u = (m * 1).unbind(0); u[1].mul_(2)"),
    ("unbind-view-of-output-error", f"{M}; u = (m * 1).unbind(0); w = u[1][1:]; w.mul_(2)"),
    ("unbind-no-grad-ok", "u = L.ones(2, 2).unbind(0); u[0].mul_(2)"),
    (
        "unbind-grad-fn",
        f"{M}; u = m.unbind(1); ([t.grad_fn.name() for t in u], [t.output_nr for t in u])",
    ),
    ("unbind-grad", f"{M}; u = m.unbind(0); (u[0] * 2 + u[1] * 3).sum().backward(); m.grad"),
    ("unbind-one-used", f"{M}; u = m.unbind(1); u[2].sum().backward(); m.grad"),
    ("unbind-base", f"{M}; u = (m * 1).unbind(0); (u[0]._base is not None, u[0]._version)"),
    ("split-inplace-error", f"{M}; s = (m * 1).split(1); s[0].mul_(2)"),
    ("split-grad-fn", f"{M}; [t.grad_fn.name() for t in m.split(1, dim=1)]"),
    ("split-sizes", f"{M}; [list(t.shape) for t in m.split([1, 2], dim=1)]"),
    ("split-bad-sizes", f"{M}; m.split([1, 1], dim=1)"),
    (
        "split-grad",
        f"{M}; a, b = m.split([1, 2], dim=1); (a.sum() * 2 + (b * b).sum()).backward(); m.grad",
    ),
    ("chunk-shapes", f"{M}; [list(t.shape) for t in m.chunk(2, 1)]"),
    ("chunk-grad-fn", f"{M}; m.chunk(2, 1)[0].grad_fn.name()"),
    ("chunk-zero", f"{M}; m.chunk(0)"),
    ("view-of-leaf-inplace", f"{X}; x[1:].mul_(2)"),
    (
        "view-inplace-copyslices",
        f"{X}; a = x * 1; a[1:].mul_(2); (a.grad_fn.name().split(':')[-1], a)",
    ),
    ("view-inplace-grad", f"{X}; a = x * 1; a[1:].mul_(2); a.sum().backward(); x.grad"),
    ("inplace-act-relu", f"{X}; a = x - 2; a.relu_(); (a.grad_fn.name(), a._version)"),
    ("inplace-act-relu-grad", f"{X}; a = x - 2; a.relu_(); a.sum().backward(); x.grad"),
    ("inplace-act-relu-modified", f"{X}; a = x - 2; a.relu_(); a.mul_(2); a.sum().backward()"),
    ("inplace-act-sigmoid", f"{X}; a = x * 1; a.sigmoid_(); a.sum().backward(); x.grad"),
    (
        "inplace-act-sigmoid-modified",
        f"{X}; a = x * 1; a.sigmoid_(); a.add_(1); a.sum().backward()",
    ),
    ("inplace-act-tanh", f"{X}; a = x * 1; a.tanh_(); a.sum().backward(); x.grad"),
    ("inplace-act-exp", f"{X}; a = x * 1; a.exp_(); a.sum().backward(); x.grad"),
    ("inplace-act-log", f"{X}; a = x * 1; a.log_(); a.sum().backward(); x.grad"),
    ("inplace-act-sqrt", f"{X}; a = x * 1; a.sqrt_(); a.sum().backward(); x.grad"),
    ("inplace-act-neg", f"{X}; a = x * 1; a.neg_(); (a.grad_fn.name(), a)"),
    ("inplace-act-abs", f"{X}; a = x - 2; a.abs_(); a.sum().backward(); x.grad"),
    ("inplace-act-pow", f"{X}; a = x * 1; a.pow_(2); a.sum().backward(); x.grad"),
    ("inplace-act-pow-tensor", f"{X}; a = x * 1; a.pow_(x); a.sum().backward(); x.grad"),
    ("inplace-act-clamp", f"{X}; a = x * 1; a.clamp_(1.5, 2.5); a.sum().backward(); x.grad"),
    ("inplace-act-ipow", f"{X}; a = x * 1; a **= 3; (a.grad_fn.name(), a)"),
    ("inplace-act-leaf", f"{X}; x.relu_()"),
    ("inplace-act-int", "L.tensor([1, -2]).relu_()"),
    ("inplace-act-sigmoid-int", "L.tensor([1, 2]).sigmoid_()"),
    ("inplace-act-exp-int", "L.tensor([1, 2]).exp_()"),
    ("inplace-act-no-grad-leaf", f"{X}\nwith L.no_grad():\n    x.exp_()\n(x, x._version)"),
    ("inplace-act-view", f"{X}; a = x * 1; a[1:].sigmoid_(); a.sum().backward(); x.grad"),
    (
        "inplace-view-unsqueeze",
        f"{X}; a = x * 1; r = a.unsqueeze_(0); (r is a, list(a.shape), a.grad_fn.name(), a._version)",
    ),
    (
        "inplace-view-squeeze",
        f"{X}; a = (x * 1).unsqueeze(0); a.squeeze_(); (list(a.shape), a.grad_fn.name())",
    ),
    (
        "inplace-view-squeeze-dim",
        f"{X}; a = (x * 1).unsqueeze(0); a.squeeze_(0); (list(a.shape), a.grad_fn.name())",
    ),
    ("inplace-view-t", f"{M}; a = m * 1; a.t_(); (list(a.shape), a.grad_fn.name(), a._version)"),
    ("inplace-view-transpose", f"{M}; a = m * 1; a.transpose_(0, 1); a.grad_fn.name()"),
    (
        "inplace-view-grad",
        f"{M}; a = m * 1; a.t_(); (a * L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward(); m.grad",
    ),
    ("inplace-view-leaf", f"{M}; m.t_()"),
    (
        "inplace-view-leaf-no-grad",
        f"{M}\nwith L.no_grad():\n    m.t_()\n(list(m.shape), m._version, m.is_leaf)",
    ),
    (
        "inplace-view-on-view",
        f"{X}; v = (x * 1)[1:]; v.unsqueeze_(0); (list(v.shape), v._base is not None, v.grad_fn.name())",
    ),
]

NAMES: list[tuple[str, str]] = [
    ("op-floordiv", f"{X}; x // 2"),
    ("op-floordiv-backward", f"{X}; (x // 2).sum().backward()"),
    ("op-floordiv-int", "L.tensor([5, -3, 4]) // 2"),
    ("op-floordiv-int-zero", "L.tensor([5, -3, 4]) // 0"),
    ("op-rfloordiv", f"{X}; 7 // x"),
    ("op-mod", f"{X}; x % 2"),
    ("op-mod-grad", f"{X}; (x % 2).sum().backward(); x.grad"),
    (
        "op-mod-tensor",
        f"{X}; y = L.tensor([2.0, 1.5, 2.5], requires_grad=True); (x % y).sum().backward(); (x.grad, y.grad)",
    ),
    ("op-rmod", f"{X}; 5 % x"),
    ("op-rmod-backward", f"{X}; (5 % x).sum().backward()"),
    ("op-mod-int", "L.tensor([5, -3, 4]) % -2"),
    ("op-mod-neg-float", "L.tensor([-3.5, 3.5]) % 2"),
    ("op-invert-bool", "~L.tensor([True, False])"),
    ("op-invert-int", "~L.tensor([5, -3])"),
    ("op-invert-float", f"{X}; ~x"),
    ("op-and-bool", "L.tensor([True, False]) & L.tensor([True, True])"),
    ("op-and-int", "L.tensor([5, 3]) & 3"),
    ("op-and-float", f"{X}; x & 1"),
    ("op-or-bool", "L.tensor([True, False]) | True"),
    ("op-ror-bool", "True | L.tensor([True, False])"),
    ("op-xor-int", "L.tensor([5, 3]) ^ L.tensor([1, 1])"),
    ("op-abs-builtin", f"{X}; abs(x - 2)"),
    ("op-pos", f"{X}; +x"),
    ("op-pos-same", f"{X}; (+x) is x"),
    ("op-pos-bool", "+L.tensor([True])"),
    ("op-ipow-leaf", f"{X}; x **= 2"),
    ("op-comparison-tensor", f"{X}; (x > 1.5, x == 2, x != 2)"),
    ("div-floor", f"{X}; x.div(2, rounding_mode='floor')"),
    ("div-trunc", f"{X}; (-x).div(2, rounding_mode='trunc')"),
    ("div-mode-grad", f"{X}; x.div(2, rounding_mode='floor').sum().backward(); x.grad"),
    ("div-bad-mode", f"{X}; x.div(2, rounding_mode='round')"),
    ("fn-sigmoid", f"{X}; L.sigmoid(x)"),
    ("fn-exp", f"{X}; L.exp(x)"),
    ("fn-sum", f"{M}; L.sum(m)"),
    ("fn-sum-dim", f"{M}; L.sum(m, 1)"),
    ("fn-sum-keepdim", f"{M}; L.sum(m, dim=0, keepdim=True)"),
    ("fn-mean", f"{M}; L.mean(m)"),
    ("fn-matmul", f"{M}; L.matmul(m, m.t())"),
    ("fn-clamp", f"{X}; L.clamp(x, min=1.5)"),
    ("fn-clamp-none", f"{X}; L.clamp(x)"),
    ("fn-where", f"{X}; L.where(x > 1.5, x, L.zeros(3))"),
    ("fn-where-scalar", f"{X}; L.where(x > 1.5, x, 0.0)"),
    ("fn-where-scalar-first", f"{X}; L.where(x > 1.5, 1.0, x)"),
    ("fn-where-one-arg", f"{X}; L.where(x > 1.5)"),
    ("fn-where-bad-cond", f"{X}; L.where(x, x, x)"),
    (
        "fn-where-grad",
        f"{X}; y = L.tensor([7.0, 8.0, 9.0], requires_grad=True); L.where(x > 1.5, x, y).sum().backward(); (x.grad, y.grad)",
    ),
    ("method-where", f"{X}; x.where(x > 1.5, L.zeros(3))"),
    ("fn-allclose", f"{X}; (L.allclose(x, x + 1e-9), L.allclose(x, x + 1))"),
    ("fn-equal", f"{X}; (L.equal(x, x.detach().clone()), L.equal(x, x[:2]))"),
    ("fn-is-tensor", f"{X}; (L.is_tensor(x), L.is_tensor([1.0]), L.is_tensor(np.ones(2)))"),
    ("fn-clone", f"{X}; L.clone(x)"),
    ("fn-detach", f"{X}; L.detach(x)"),
    ("fn-empty-shape", "list(L.empty(2, 3).shape)"),
    ("fn-empty-dtype", "L.empty(2, dtype=L.float64).dtype"),
    ("fn-full-like", f"{X}; L.full_like(x, 7.0)"),
    ("fn-full-like-int", "L.full_like(L.tensor([1, 2]), 7)"),
    ("fn-zeros-like-dtype", f"{X}; L.zeros_like(x, dtype=L.float64)"),
    ("fn-ones-like-grad", f"{X}; L.ones_like(x, requires_grad=True)"),
    ("fn-randn-like", f"{X}; L.manual_seed(0); L.randn_like(x)"),
    ("fn-rand-like", f"{X}; L.manual_seed(0); L.rand_like(x)"),
    ("fn-randn-like-int", "L.randn_like(L.tensor([1, 2]))"),
    ("fn-numel", f"{M}; L.numel(m)"),
    ("min-all", f"{M}; m.min()"),
    ("min-dim", f"{M}; m.min(1)"),
    ("min-grad", f"{M}; m.min().backward(); m.grad"),
    ("min-dim-grad", f"{M}; m.min(0)[0].sum().backward(); m.grad"),
    ("min-ties", "t = L.tensor([1.0, 1.0, 2.0], requires_grad=True); t.min().backward(); t.grad"),
    ("min-empty", "L.ones(0).min()"),
    ("amax", f"{M}; m.amax(0)"),
    (
        "amax-ties-grad",
        "t = L.tensor([[3.0, 3.0], [1.0, 2.0]], requires_grad=True); t.amax(1).sum().backward(); t.grad",
    ),
    ("amin", f"{M}; m.amin(1, keepdim=True)"),
    ("argmin", f"{M}; (m.argmin(), m.argmin(1))"),
    ("std", f"{M}; m.std()"),
    ("std-dim", f"{M}; m.std(1)"),
    ("std-grad", f"{M}; m.std().backward(); m.grad"),
    ("std-unbiased-false", f"{M}; m.std(unbiased=False)"),
    ("std-correction", f"{M}; m.std(dim=0, correction=0)"),
    ("std-one", "L.tensor([1.0], requires_grad=True).std()"),
    ("std-int", "L.tensor([1, 2]).std()"),
    ("var", f"{M}; m.var(0)"),
    ("var-keepdim", f"{M}; m.var(1, keepdim=True)"),
    ("var-grad", f"{M}; m.var(1).sum().backward(); m.grad"),
    ("norm", f"{M}; m.norm()"),
    ("norm-grad", f"{M}; m.norm().backward(); m.grad"),
    ("norm-1", f"{M}; m.norm(1)"),
    ("norm-1-grad", f"{M}; m.norm(1).backward(); m.grad"),
    ("norm-dim", f"{M}; m.norm(dim=1)"),
    ("norm-inf", f"{M}; m.norm(float('inf'))"),
    ("norm-inf-grad", f"{M}; m.norm(float('inf')).backward(); m.grad"),
    ("norm-3", f"{M}; m.norm(3)"),
    ("norm-3-grad", f"{M}; m.norm(3).backward(); m.grad"),
    ("norm-zero-grad", "t = L.zeros(3, requires_grad=True); t.norm().backward(); t.grad"),
    ("norm-fro", f"{M}; m.norm('fro')"),
    ("norm-grad-fn", f"{M}; m.norm().grad_fn.name()"),
    ("gather", f"{M}; m.gather(1, L.tensor([[0, 2], [1, 0]]))"),
    ("gather-grad", f"{M}; m.gather(1, L.tensor([[0, 0], [1, 0]])).sum().backward(); m.grad"),
    ("gather-int32-index", f"{M}; m.gather(1, L.tensor([[0], [1]], dtype=L.int32))"),
    ("gather-out-of-range", f"{M}; m.gather(1, L.tensor([[5], [1]]))"),
    ("gather-fn", f"{M}; L.gather(m, 0, L.tensor([[1, 0, 1]]))"),
    ("masked-fill", f"{M}; m.masked_fill(m > 2, 0.0)"),
    ("masked-fill-grad", f"{M}; m.masked_fill(m > 2, 0.0).sum().backward(); m.grad"),
    ("masked-fill-broadcast", f"{M}; m.masked_fill(L.tensor([True, False, True]), -1.0)"),
    ("masked-fill-float-mask", f"{M}; m.masked_fill(m, 0.0)"),
    ("masked-fill-tensor-value", f"{M}; m.masked_fill(m > 2, L.tensor(9.0))"),
    ("masked-fill-inplace", f"{M}; a = m * 1; a.masked_fill_(a < 0, 0.0); (a.grad_fn.name(), a)"),
    ("new-zeros", f"{M}; m.new_zeros(2, 3)"),
    ("new-zeros-tuple", f"{M}; m.new_zeros((4,))"),
    ("new-ones-dtype", f"{M}; m.new_ones(2, dtype=L.float64)"),
    ("new-full", f"{M}; m.new_full((2,), 3.5)"),
    ("new-tensor", f"{M}; m.new_tensor([1, 2])"),
    ("new-zeros-flags", f"{M}; z = m.new_zeros(2); (z.requires_grad, z.grad_fn)"),
    ("unbind-values", f"{M}; m.unbind(1)"),
    ("unbind-0d", "L.tensor(1.0).unbind()"),
    ("swapaxes", f"{M}; m.swapaxes(0, 1).grad_fn.name()"),
    ("view-as", f"{M}; m.view_as(L.ones(3, 2))"),
    ("expand-as", "L.ones(1, 3).expand_as(L.ones(2, 3))"),
    ("sum-to-size", f"{M}; m.sum_to_size(1, 3)"),
    ("sum-to-size-lead", f"{M}; m.sum_to_size(3)"),
    ("sum-to-size-bad", f"{M}; m.sum_to_size(2)"),
    ("log1p", f"{X}; x.log1p()"),
    ("sign", f"{X}; (x - 2).sign()"),
    ("sign-grad", f"{X}; (x - 2).sign().sum().backward(); x.grad"),
    ("matmul-3d-2d", f"{M}; a = L.ones(4, 2, 3) * 1.0; (a @ m.t()).shape"),
    (
        "matmul-3d-2d-grad-fn",
        "a = L.ones(4, 2, 3, requires_grad=True); (a @ L.ones(3, 5)).grad_fn.name()",
    ),
    (
        "matmul-3d-3d",
        "a = L.arange(12.0).reshape(2, 2, 3); b = L.arange(12.0).reshape(2, 3, 2); a @ b",
    ),
    ("matmul-broadcast", "a = L.ones(2, 1, 2, 3); b = L.ones(3, 3, 4); (a @ b).shape"),
    ("matmul-1d-3d", "(L.ones(3) @ L.ones(2, 3, 4)).shape"),
    ("matmul-3d-1d", "(L.ones(2, 3, 4) @ L.ones(4)).shape"),
    (
        "matmul-batched-grad",
        "a = L.arange(12.0).reshape(2, 2, 3).requires_grad_(); b = L.arange(6.0).reshape(3, 2).requires_grad_(); (a @ b).sum().backward(); (a.grad, b.grad)",
    ),
    (
        "matmul-batched-3d-grad",
        "a = L.arange(12.0).reshape(2, 2, 3).requires_grad_(); b = L.arange(12.0).reshape(2, 3, 2).requires_grad_(); ((a @ b) ** 2).sum().backward(); (a.grad, b.grad)",
    ),
    ("matmul-batch-mismatch", "L.ones(2, 3, 4) @ L.ones(3, 4, 5)"),
    ("matmul-inner-mismatch", "L.ones(2, 3, 4) @ L.ones(3, 5)"),
    ("default-dtype", "(L.get_default_dtype(), L.tensor([1.0]).dtype)"),
    (
        "default-dtype-set",
        "L.set_default_dtype(L.float64); r = (L.tensor([1.5]).dtype, L.ones(2).dtype, L.arange(2.0).dtype, repr(L.tensor([1.5]))); L.set_default_dtype(L.float32); r",
    ),
    ("default-dtype-int", "L.set_default_dtype(L.int64)"),
    (
        "default-dtype-prints-f32",
        "L.set_default_dtype(L.float64); r = repr(L.tensor([1.5], dtype=L.float32)); L.set_default_dtype(L.float32); r",
    ),
    (
        "printoptions-precision",
        "L.set_printoptions(precision=2); r = repr(L.tensor([1.23456, 2.5])); L.set_printoptions(profile='default'); r",
    ),
    (
        "printoptions-threshold",
        "L.set_printoptions(threshold=5); r = repr(L.arange(10.0)); L.set_printoptions(profile='default'); r",
    ),
    (
        "printoptions-sci",
        "L.set_printoptions(sci_mode=True); r = repr(L.tensor([1.5, 2.0])); L.set_printoptions(profile='default'); r",
    ),
    (
        "printoptions-short",
        "L.set_printoptions(profile='short'); r = repr(L.tensor([1.23456, 2.5])); L.set_printoptions(profile='default'); r",
    ),
    ("wrong-float64-exact", "L.tensor(0.1, dtype=L.float64).item() == 0.1"),
    ("wrong-full-float64-exact", "L.full((2,), 0.1, dtype=L.float64)[0].item() == 0.1"),
    ("wrong-np-array-copies", "t = L.ones(3); a = np.array(t); a[0] = 5; t"),
    ("wrong-np-asarray-shares", "t = L.ones(3); a = np.asarray(t); a[0] = 5; t"),
    ("wrong-from-numpy-negative-stride", "L.from_numpy(np.arange(3.0)[::-1])"),
    ("wrong-from-numpy-scalar", "L.from_numpy(np.float32(3))"),
    ("wrong-from-numpy-list", "L.from_numpy([1.0, 2.0])"),
    ("wrong-mul-ndarray-grad", f"{X}; x * np.ones(3)"),
    ("wrong-mul-ndarray-no-grad", "L.ones(2) * np.ones(2)"),
    ("wrong-ndarray-mul-tensor", f"{X}; np.ones(3) * x"),
    ("wrong-add-ndarray-grad", f"{X}; x + np.ones(3)"),
    (
        "optim-state-dict",
        "p = L.nn.Parameter(L.ones(2)); o = L.optim.SGD([p], lr=0.1, momentum=0.9); (p * 2).sum().backward(); o.step(); sd = o.state_dict(); (sorted(sd), sd['param_groups'][0]['params'], sd['state'][0]['momentum_buffer'])",
    ),
    (
        "optim-load-state-dict",
        "p = L.nn.Parameter(L.ones(2)); o = L.optim.SGD([p], lr=0.1, momentum=0.9); (p * 2).sum().backward(); o.step(); sd = o.state_dict(); o2 = L.optim.SGD([p], lr=0.5, momentum=0.9); o2.load_state_dict(sd); (o2.param_groups[0]['lr'], o2.state[p]['momentum_buffer'])",
    ),
    (
        "optim-load-wrong-groups",
        "p = L.nn.Parameter(L.ones(2)); q = L.nn.Parameter(L.ones(2)); o = L.optim.SGD([p], lr=0.1); o2 = L.optim.SGD([p, q], lr=0.1); o2.load_state_dict(o.state_dict())",
    ),
    (
        "optim-adam-state-dict",
        "p = L.nn.Parameter(L.ones(2)); o = L.optim.Adam([p]); (p * 2).sum().backward(); o.step(); sd = o.state_dict(); (sorted(sd['state'][0]), sd['state'][0]['step'])",
    ),
    (
        "module-forward-hook",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); seen = []; h = lin.register_forward_hook(lambda mod, args, out: seen.append(list(out.shape))); lin(L.ones(3, 2)); seen",
    ),
    (
        "module-forward-hook-replace",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_forward_hook(lambda mod, args, out: out * 0); lin(L.ones(3, 2))",
    ),
    (
        "module-forward-pre-hook",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,)); lin(L.ones(3, 2)) - lin.bias",
    ),
    (
        "module-forward-hook-remove",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_forward_hook(lambda mod, args, out: out * 0); h.remove(); lin(L.ones(1, 2)).abs().sum() > 0",
    ),
    (
        "module-backward-hook",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); seen = []; h = lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go))); x = L.ones(3, 2, requires_grad=True); lin(x).sum().backward(); seen[0]",
    ),
    (
        "module-backward-hook-replace",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,)); x = L.ones(3, 2, requires_grad=True); lin(x).sum().backward(); x.grad",
    ),
    (
        "module-backward-hook-grad-fn",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_full_backward_hook(lambda mod, gi, go: None); lin(L.ones(3, 2, requires_grad=True)).grad_fn.name()",
    ),
    (
        "module-backward-pre-hook",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); h = lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,)); x = L.ones(1, 2, requires_grad=True); lin(x).sum().backward(); (x.grad, lin.bias.grad)",
    ),
    (
        "module-backward-hook-no-input-grad",
        "L.manual_seed(0); lin = L.nn.Linear(2, 1); seen = []; h = lin.register_full_backward_hook(lambda mod, gi, go: seen.append(gi)); lin(L.ones(3, 2)).sum().backward(); seen",
    ),
]

ENGINE3_CASES: list[tuple[str, str]] = HOOKS + FUNCTIONS + CREATE_GRAPH + SAVED + VIEWS + NAMES

# Where minigrad differs from torch on purpose (the reason is the value).
ENGINE3_KNOWN_DIFFERENCES: dict[str, str] = {
    "wrong-np-array-copies": "torch 2.13's __array__ also warns numpy 2's DeprecationWarning about "
    "its own signature; the values (a copy) match",
    "wrong-mul-ndarray-no-grad": "torch 2.13's __array_wrap__ also warns numpy 2's "
    "DeprecationWarning about its own signature; the values match",
}
