"""The words viz writes, in English or in Chinese: `viz.set_language("zh")`.

    viz.set_language("zh")    # every later picture, summary and stepper of this process

Every fixed word of a picture, a text summary, a before/after and a stepper goes through
`say(english, **values)`: the English template is written where it is used, and ZH gives its
Chinese form (the terms of docs/glossary.md: 叶子, 需要梯度, 版本计数器, 计算图, 视图...). What
is not translated: code and names (`requires_grad`, `grad_fn=MulBackward0`, `out`, `v0`, `S1`,
`None`), tensors as Python prints them, and error messages, which are torch's own words.
"""

from __future__ import annotations

from collections.abc import Iterable

from .doctor_words import DOCTOR_ZH

__all__ = ["LANGUAGES", "current_language", "listing", "say", "set_language"]

LANGUAGES = ("en", "zh")
_language = "en"


def set_language(language: str) -> None:
    """Write every later picture and text in `language`: "en" (English) or "zh" (Chinese)."""
    global _language
    if language not in LANGUAGES:
        raise ValueError(
            f"viz.set_language: unknown language {language!r}; choose one of: "
            f"{', '.join(LANGUAGES)}"
        )
    _language = language


def current_language() -> str:
    """The language set with `set_language` ("en" until then)."""
    return _language


def say(english: str, **values: object) -> str:
    """`english` in the current language, its `{name}` fields filled from `values`."""
    template = english if _language == "en" else ZH[english]
    return template.format(**values) if values else template


def listing(items: Iterable[str]) -> str:
    """Names one after another: "a, b" in English, "a、b" in Chinese (its enumeration comma)."""
    return ("、" if _language == "zh" else ", ").join(items)


# The Chinese of every English template `say` is given (tests/test_viz_language.py checks
# that none is missing). Punctuation is Chinese where the sentence is: '，' '：' '；' '（）'.
ZH: dict[str, str] = {
    # a place in a notebook cell (the doctor's Where)
    "{function}(), line {line}": "{function}() 第 {line} 行",
    "line {line}": "第 {line} 行",
    # joining words
    "; ": "；",
    ", ": "，",
    " ({note})": "（{note}）",
    # tensors (pictures and text)
    "leaf": "叶子",
    "non-leaf": "非叶子",
    "non-leaf, output": "非叶子，输出",
    "requires_grad": "需要梯度",
    "no grad": "不需要梯度",
    "leaf, requires_grad": "叶子，需要梯度",
    "leaf, no grad": "叶子，不需要梯度",
    ", view": "，视图",
    "view": "视图",
    ", v{version}": "，v{version}",
    "storage {storage}": "存储 {storage}",
    "shares memory with {names}": "与 {names} 共享内存",
    "; torch does not expose version counters": "；torch 不公开版本计数器",
    "shares memory + version counter with {names}": "与 {names} 共享内存和版本计数器",
    "shares memory but not the version counter with {names}": (
        "与 {names} 共享内存，但不共享版本计数器"
    ),
    # saved values (pictures)
    "saved {slot}": "保存的 {slot}",
    "saved {slot} = {owner}": "保存的 {slot} = {owner}",
    "saved v{saved} / now v{now}": "保存时 v{saved} / 现在 v{now}",
    "{text}: freed by backward": "{text}：已被反向传播释放",
    "{text}, version unknown": "{text}，版本号未知",
    "{text}, v{saved} / now v{now}": "{text}，保存时 v{saved} / 现在 v{now}",
    "freed by backward": "已被反向传播释放",
    "version unknown": "版本号未知",
    "backward will raise": "反向传播会报错",
    "saved = {owner}": "保存的值 = {owner}",
    "by {count} functions": "被 {count} 个函数保存",
    "as {slots}": "作为 {slots}",
    "saved {owner} (the same memory, unchanged) for: {users}": (
        "为以下函数保存的 {owner}（同一块内存，未改动）：{users}"
    ),
    # storage boxes (pictures)
    "shared memory {storage}": "共享内存 {storage}",
    "+ {count} saved values of it, drawn beside their functions": (
        "另有 {count} 个它的保存值，画在各自的函数旁边"
    ),
    "torch does not expose version counters": "torch 不公开版本计数器",
    "one version counter, at v{version}": "一个版本计数器，当前 v{version}",
    "{count} version counters on one memory:": "同一块内存上有 {count} 个版本计数器：",
    "#{number} at v{version}: {who}": "#{number} 当前 v{version}：{who}",
    "+ {count} saved values": "另有 {count} 个保存值",
    "saved for backward: {names}": "为反向传播保存：{names}",
    "{count} saved values": "{count} 个保存值",
    "saved by {count} functions": "被 {count} 个函数保存",
    "saved {slot} of {function}": "{function} 保存的 {slot}",
    # before / after (pictures)
    "before": "之前",
    "after": "之后",
    "after {label}": "执行 {label} 之后",
    "no longer in this graph": "已不在这张计算图中",
    "gone": "已消失",
    " cut by {label} ": " 被 {label} 切断 ",
    # the legend
    "leaf tensor that requires grad": "需要梯度的叶子张量",
    "tensor that does not require grad (dashed)": "不需要梯度的张量（虚线）",
    'non-leaf tensor the picture was drawn from: says "output"': (
        "画图起点的非叶子张量：标有“输出”"
    ),
    "non-leaf tensor in between": "中间的非叶子张量",
    "grad_fn node (torch's name) / AccumulateGrad": "grad_fn 节点（torch 的名字）/ AccumulateGrad",
    "value saved for backward: saved vN / now vN": "为反向传播保存的值：保存时 vN / 现在 vN",
    'saved value changed since: says "backward will raise"': (
        "保存后又被修改的保存值：标有“反向传播会报错”"
    ),
    "None: an input slot with no graph behind it": "None：后面没有计算图的输入槽位",
    "arrows: the forward flow (backward walks them in reverse)": (
        "箭头：前向传播的方向（反向传播逆着走）"
    ),
    "dashed box: tensors that share memory": "虚线框：共享内存的张量",
    "thick red outline and a note": "红色粗边框和一行说明",
    " = changed by the call (the note says how)": " = 被这次调用改变（说明写着怎么变的）",
    "thick black outline = new": "黑色粗边框 = 新出现的",
    "dashed edge ending in a bar ⊣": "以短横 ⊣ 结尾的虚线边",
    " = an edge the call cut": " = 被这次调用切断的边",
    # what a call changed (the picture's notes and the summary's lines)
    "became a leaf": "变成了叶子",
    "became a leaf (grad_fn was {label})": "变成了叶子（原来的 grad_fn 是 {label}）",
    "grad_fn is now {label}": "grad_fn 现在是 {label}",
    "no longer requires grad": "不再需要梯度",
    "now requires grad": "现在需要梯度",
    "was v{version}": "原为 v{version}",
    "version v{old} -> v{new}": "版本 v{old} -> v{new}",
    "memory changed via {names}": "内存经由 {names} 被修改",
    "backward will NOT notice": "反向传播不会察觉",
    "non-leaf, grad_fn={label}": "非叶子，grad_fn={label}",
    "{name}: new tensor, {kind}{sharing}": "{name}：新张量，{kind}{sharing}",
    "{name}: {change}": "{name}：{change}",
    "{label}: new node": "{label}：新节点",
    "{function} saved {slot}": "{function} 保存的 {slot}",
    "{function} saved {slot}={owner}": "{function} 保存的 {slot}={owner}",
    "{name}: saved v{saved}, now v{now} -> backward will raise": (
        "{name}：保存时 v{saved}，现在 v{now} -> 反向传播会报错"
    ),
    "{name}: memory changed through {names} (another version counter), still v{now}: "
    "backward will silently use the new values": (
        "{name}：内存经由 {names}（另一个版本计数器）被修改，仍是 v{now}："
        "反向传播会悄悄使用新的数值"
    ),
    "{name}: freed": "{name}：已释放",
    "edge removed: {src} -> {dst}": "边被移除：{src} -> {dst}",
    "no longer reachable: {labels}": "不再可达：{labels}",
    "after {label}:": "执行 {label} 之后：",
    "nothing changed": "没有变化",
    # the text form of a graph
    "tensors:": "张量：",
    "(none)": "（无）",
    "functions:": "节点：",
    "(none: nothing was recorded)": "（无：什么都没有记录）",
    "-> .grad of {name}": "-> {name} 的 .grad",
    "saved: {values}": "保存：{values}",
    "{head} (freed by backward)": "{head}（已被反向传播释放）",
    "{head} (version unknown)": "{head}（版本号未知）",
    "{head} (saved v{saved}, now v{now}: changed in place, backward will raise)": (
        "{head}（保存时 v{saved}，现在 v{now}：已被原地修改，反向传播会报错）"
    ),
    "{head} (saved v{saved}, now v{now})": "{head}（保存时 v{saved}，现在 v{now}）",
    # the text alternative of a picture (alt_text.py)
    ". ": "。",
    "autograd graph of {roots}: {counts}": "{roots} 的计算图：{counts}",
    "1 tensor": "1 个张量",
    "{count} tensors": "{count} 个张量",
    "1 function": "1 个节点",
    "{count} functions": "{count} 个节点",
    "1 saved value": "1 个保存值",
    "and 1 more change": "另有 1 处变化",
    "and {count} more changes": "另有 {count} 处变化",
    "1 edge cut": "1 条边被切断",
    "{count} edges cut": "{count} 条边被切断",
    "the graph's edges are unchanged": "计算图的边没有变化",
    "{head}: {what}": "{head}：{what}",
    "before: {graph}": "之前：{graph}",
    "after: {graph}": "之后：{graph}",
    # the stepper
    "step {number} of {count}: {code}": "第 {number} 步（共 {count} 步）：{code}",
    "{title}: {count} steps": "{title}：共 {count} 步",
    " (select a step to open it)": "（选择某一步展开）",
    "raised:": "报错：",
    "warned:": "警告：",
    "gradients:": "梯度：",
    "what changed:": "变化：",
    "nothing in the graph": "计算图没有变化",
    "values:": "数值：",
    "graph:": "计算图：",
    "{value}  (version {version})": "{value}  （版本 {version}）",
    "beside the correct gradient (the same backward with nothing cut or changed):": (
        "与正确的梯度对照（同样的反向传播，没有切断或修改任何东西）："
    ),
    "  correct:   a.grad = {grad}": "  正确的：  a.grad = {grad}",
    "  this run:  backward raised, so no gradient reached a (the change was caught)": (
        "  这次运行：反向传播报错，没有梯度到达 a（修改被发现了）"
    ),
    "  this run:  a.grad = None": "  这次运行：a.grad = None",
    "  this run:  a.grad = {grad}   <- correct": "  这次运行：a.grad = {grad}   <- 正确",
    "  this run:  a.grad = {grad}   <- silently wrong: no error raised": (
        "  这次运行：a.grad = {grad}   <- 悄无声息地错了：没有报错"
    ),
    # the text a notebook shows in place of a picture (the objects' reprs)
    "<minigrad.viz graph: {nodes} nodes, {edges} edges>": (
        "<minigrad.viz 计算图：{nodes} 个节点，{edges} 条边>"
    ),
    "<minigrad.viz comparison after {label}: {count} change>": (
        "<minigrad.viz 前后对比：执行 {label} 之后，{count} 处变化>"
    ),
    "<minigrad.viz comparison after {label}: {count} changes>": (
        "<minigrad.viz 前后对比：执行 {label} 之后，{count} 处变化>"
    ),
    "<minigrad.viz snapshot ({source}): {tensors} tensors, {functions} functions, {saved} saved>": (
        "<minigrad.viz 快照（{source}）：{tensors} 个张量，{functions} 个节点，{saved} 个保存值>"
    ),
    "<minigrad.viz stepper: {count} steps; the last, {label}, raised {error}>": (
        "<minigrad.viz 步进器：共 {count} 步；最后一步 {label} 报错 {error}>"
    ),
    "<minigrad.viz stepper: {count} steps; the last, {label}, ran>": (
        "<minigrad.viz 步进器：共 {count} 步；最后一步 {label} 正常运行>"
    ),
    # a matplotlib plot shown with viz.show_plot (plots.py)
    "plot": "图表",
    "x axis": "横轴",
    "y axis": "纵轴",
    "no label": "无标签",
    "{label} (log scale)": "{label}（对数刻度）",
    "1 curve": "1 条曲线",
    "{count} curves": "{count} 条曲线",
    # the stepper widget
    "step": "步骤",
    "◀ back": "◀ 上一步",
    "previous step": "上一步",
    "next ▶": "下一步 ▶",
    "next step": "下一步",
    "predict first": "先预测",
    "show": "显示",
    "Predict first: what will the graph, the versions and the gradients look like after this "
    "step? Then press <b>show</b>.": (
        "先预测：这一步之后，计算图、版本号和梯度会是什么样？然后按<b>显示</b>。"
    ),
}
ZH.update(DOCTOR_ZH)  # the gradient doctor's sentences (doctor_words.py)
