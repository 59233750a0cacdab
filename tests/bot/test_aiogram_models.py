"""aiogram's answer models survive the garbage collector once held."""

from __future__ import annotations

import gc
import weakref
from typing import Any, cast

from aiogram.methods import AnswerCallbackQuery, GetChatMember, GetUpdates, SendMessage
from aiogram.methods.base import Response

from bot.aiogram_models import hold_response_models


def answer_model(method: Any) -> weakref.ref[type[Any]]:
    return weakref.ref(cast(Any, Response)[method.__returning__])


def test_held_models_are_the_ones_aiogram_looks_up_after_a_collection() -> None:
    hold_response_models()
    for method in (AnswerCallbackQuery, GetUpdates, GetChatMember, SendMessage):
        model = answer_model(method)
        gc.collect()
        assert model() is not None, method.__name__
        assert cast(Any, Response)[method.__returning__] is model()
