"""`install`: putting the middleware (`middleware`) and the commands (`commands`) on an Application.

Kept apart from both so that each imports only what it uses: the commands read the middleware's `Memory`,
the middleware knows nothing of the commands, and this module puts the two together.
"""

from __future__ import annotations

import weakref
from typing import Any

from telegram import Update
from telegram.ext import Application, TypeHandler

from .commands import Commands
from .middleware import Middleware

__all__ = ["install", "middleware_of"]

_installed: weakref.WeakKeyDictionary[Application[Any, Any, Any, Any, Any, Any], Middleware] = (
    weakref.WeakKeyDictionary()
)


def install(app: Application[Any, Any, Any, Any, Any, Any], mneme: Any, **options: Any) -> Middleware:
    """Put the companion's memory on `app`: the type handler in group `group` (-100), the commands in the
    next one. Options: `commands` (True, False or names), `prompt` ("addressed", "always", "never" or a
    function of (update, memory)), `judge` (the model that judges observes; the engine's own by default),
    `names` (words that address the bot in groups), `ask` (the ask command), `patience` (flood control),
    `sentences` (your own wording), `memory_lines`, `turns` (a bot layer's turn service to share, as the
    adapter's runner does) and `keep_lines` (False when someone else keeps the lines). Returns the
    `Middleware`."""
    if app in _installed:
        raise ValueError("the Mneme middleware is already installed on this Application")
    middleware = Middleware(mneme, **options)
    middleware.application = app
    app.add_handler(TypeHandler(Update, middleware.pre, block=True), group=middleware.group)
    for handler in Commands(middleware).handlers():
        app.add_handler(handler, group=middleware.group + 1)
    _installed[app] = middleware
    return middleware


def middleware_of(app: Application[Any, Any, Any, Any, Any, Any]) -> Middleware | None:
    """The middleware installed on `app`, if any."""
    return _installed.get(app)
