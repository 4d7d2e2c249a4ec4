"""Automatic checks for the exercises of notebooks 09, 10, 12 and 13: friendly, specific feedback,
never an exception.

    import course_checks as check
    check.check_version(prediction_a1)      # 12, part A: predict, then run
    check.check_loss_accumulation(train_epoch)  # 12, part B: repair a training loop
    check.check_clip_hook(clip_grad)        # 09: write a hook (10 has its own four checks)

Each `check_*` function takes the learner's answer (a prediction, or the function they
repaired), runs the scenario itself with minigrad and prints what it found and why: "Well
done! ..." when the exercise is solved, "Not yet: ..." with a hint otherwise, and "No answer
yet: ..." while the answer is still the `None` or the broken function the notebook gives. It
returns None (a check cell shows only the printed feedback) and never raises, so the exercises
notebook runs top to bottom in any state. A part B check watches the learner's function at work
and tests the conditions the exercise states, so a wrong fix that happens to give the right
numbers is still told what is wrong.

The package, one module per idea:

    feedback.py     the language (`set_language`, `lang=`), messages (`tr`), wrapping, printing
    sandbox.py      `checked`: a check runs time-boxed in a worker thread, errors become messages
    answers.py      reading the learner's answer: a prediction, a letter, what code returned
    given.py        the code exercises give, as the notebooks give it (for "No answer yet")
    predictions.py  part A: A1-A5
    training.py     part B, one training loop: B1 (what it adds up), B6 (where it records)
    weights.py      part B, one weight: B2 (updated at the wrong moment), B4 (logged for a plot)
    patterns.py     part B, notebook 07's patterns: B3 (the GAN D step), B5 (truncated BPTT)
    hooks.py        notebook 09: E1 (a reversing hook), E2 (a clipping hook), E3 (a gradient
                    reversal Function), E4 (a tensor kept on ctx)
    doctor.py       notebook 13: E1 (weights that are leaves), E2 (a soft gate), each
                    checked with the gradient doctor (viz.explain)
    higher_order.py notebook 10: E1 (what exp saves), E2 (a gradient penalty), E3 (a MAML inner
                    step), E4 (a pack hook that copies)
    zh.json         the Chinese messages, written by scripts/translations.py build from
                    translations/zh/course_checks.md (never edit it)

Feedback comes in English or Chinese: `set_language("zh")` (the Chinese notebooks'
notebooks/zh/course_checks.py does that), or `lang="zh"` on one call. The checks seed minigrad's
generator (`minigrad.manual_seed`) so their numbers are reproducible.
"""

from .doctor import check_leaf_weights, check_soft_gate
from .feedback import LANGUAGES, get_language, set_language
from .higher_order import (
    check_detaching_pack_hook,
    check_exp_saves,
    check_gradient_penalty,
    check_inner_step,
)
from .hooks import check_clip_hook, check_ctx_attribute, check_grad_reverse, check_reversing_hook
from .patterns import check_gan_d_step, check_tbptt
from .predictions import (
    check_data_zero,
    check_detach_inplace,
    check_new_leaf,
    check_numpy_error,
    check_version,
)
from .training import check_eval_loop, check_loss_accumulation
from .weights import check_weight_decay, check_weight_log

__all__ = [
    "LANGUAGES",
    "check_clip_hook",
    "check_ctx_attribute",
    "check_data_zero",
    "check_detach_inplace",
    "check_detaching_pack_hook",
    "check_eval_loop",
    "check_exp_saves",
    "check_gan_d_step",
    "check_grad_reverse",
    "check_gradient_penalty",
    "check_inner_step",
    "check_leaf_weights",
    "check_loss_accumulation",
    "check_new_leaf",
    "check_numpy_error",
    "check_reversing_hook",
    "check_soft_gate",
    "check_tbptt",
    "check_version",
    "check_weight_decay",
    "check_weight_log",
    "get_language",
    "set_language",
]
