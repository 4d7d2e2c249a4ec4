"""The Chinese of the gradient doctor's sentences (doctor_report.py), joined into words.ZH.

Kept apart from words.py only for its length; `say` reads them from words.ZH like any other
template. Code stays code: `.detach()`, `requires_grad`, `no_grad()`, `.retain_grad()`.
"""

from __future__ import annotations

__all__ = ["DOCTOR_ZH"]

DOCTOR_ZH: dict[str, str] = {
    # the first line of a report
    "{total} parameters checked: {good} get a gradient": (
        "检查了 {total} 个参数：{good} 个会得到梯度"
    ),
    "; {frozen} frozen on purpose": "；{frozen} 个是有意冻结的",
    "; {bad} have a problem:": "；{bad} 个有问题：",
    "backward() will raise before any parameter gets a gradient:": (
        "任何参数得到梯度之前，backward() 就会报错："
    ),
    # one sentence per cause
    "{names}: no gradient: requires_grad is False (set at {where}).": (
        "{names}：没有梯度：requires_grad 为 False（在 {where} 设置）。"
    ),
    "{names}: no gradient: requires_grad is False.": "{names}：没有梯度：requires_grad 为 False。",
    "{names}: frozen on purpose (requires_grad is False and the optimizer does not hold it).": (
        "{names}：有意冻结（requires_grad 为 False，优化器也不含它）。"
    ),
    "{names}: .grad will stay None: it is not a leaf but made by an operation at {where}; "
    "make the parameter itself the leaf.": (
        "{names}：.grad 会一直是 None：它不是叶子，而是 {where} 处的运算造出来的；"
        "请让参数本身成为叶子。"
    ),
    "{names}: .grad will stay None: it is not a leaf but made by an operation; "
    "make the parameter itself the leaf.": (
        "{names}：.grad 会一直是 None：它不是叶子，而是运算造出来的；请让参数本身成为叶子。"
    ),
    "{names}: .grad will stay None: it is not a leaf; call .retain_grad() on it before "
    "backward().": (
        "{names}：.grad 会一直是 None：它不是叶子；请在 backward() 之前调用 .retain_grad()。"
    ),
    "{names}: no gradient: {op} at {where} cuts the path to the loss.": (
        "{names}：没有梯度：{where} 处的 {op} 切断了通往损失的路径。"
    ),
    "{names}: no gradient: the value left the graph through {op} at {where}.": (
        "{names}：没有梯度：值在 {where} 处经 {op} 离开了计算图。"
    ),
    "{names}: no gradient: the value left the graph through {op} at {where} and came back "
    "through {back_op} at {back}.": (
        "{names}：没有梯度：值在 {where} 处经 {op} 离开了计算图，又在 {back} 处经 {back_op} 回来。"
    ),
    "{names}: no gradient: the step at {where} gives integers or booleans, which carry no "
    "gradient.": "{names}：没有梯度：{where} 处的运算得到整数或布尔值，它们不带梯度。",
    "{names}: no gradient: the forward ran under no_grad() (from {where}).": (
        "{names}：没有梯度：前向计算在 no_grad() 下运行（从 {where} 开始）。"
    ),
    "{names}: no gradient: the forward ran under inference_mode() (from {where}).": (
        "{names}：没有梯度：前向计算在 inference_mode() 下运行（从 {where} 开始）。"
    ),
    "{names}: no gradient: never used in the forward that made the loss.": (
        "{names}：没有梯度：算出损失的前向计算从未用到它。"
    ),
    "{names}: no gradient: not on the loss's graph (run the forward inside "
    "`with viz.trace():` to see where it was cut).": (
        "{names}：没有梯度：不在损失的计算图上（在 `with viz.trace():` 里运行前向计算，"
        "可以看到在哪里被切断）。"
    ),
    "{names}: no gradient: {op} (at {where}) returns None for it.": (
        "{names}：没有梯度：{op}（在 {where}）对它返回 None。"
    ),
    "{names}: gets a gradient, but the optimizer does not hold it, so it never changes.": (
        "{names}：会得到梯度，但优化器不含它，所以它永远不会变。"
    ),
    "{names}: .grad still holds an earlier step's gradient, and backward() adds to it "
    "(zero it first).": "{names}：.grad 里还留着上一步的梯度，backward() 会累加上去（请先清零）。",
    "backward() will raise: {node}'s saved {slot} was changed in place at {where}.": (
        "backward() 会报错：{node} 保存的 {slot} 在 {where} 处被原地修改了。"
    ),
    "backward() will raise: {node}'s saved {slot} was changed in place.": (
        "backward() 会报错：{node} 保存的 {slot} 被原地修改了。"
    ),
    "cut on purpose by {what} at {where}.": "在 {where} 处有意用 {what} 切断。",
    "an integer step": "整数运算",
    # the picture
    "cut: {what}, {where}": "切断：{what}，{where}",
}
