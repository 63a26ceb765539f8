"""The bot layer: what only a bot needs, above the engine.

Adapters turn a platform's events into `Incoming` values (`incoming`); the turn service (`turns.Turns`)
does what every bot does with one message, once for all of them: the subject, the line kept, the memory
block and the conversation for the model, each wait bounded, the reply kept and the exchange observed in
order, never lost. The runner (`runner.Runner`) answers by itself on top of it (`mneme run`, `mneme chat`);
drop-in modes (the Discord cog, the Telegram middleware, the OneBot adapter, the NoneBot2 plugin) call the
turn service from their host's own handlers. Also here: reply splitting (`split`), the console adapter
(`console`), the offline stand-in (`offline`), the model providers' side (`models`), the bot-level hooks
and built-in plugins (`hooks`, `default_plugins`), the settings (`settings`) and the demo (`demo`).

The data flow runs one way: adapter -> bot layer -> engine -> store. The engine never imports this
package; making a `Mneme` and using its verbs loads none of it.
"""

from __future__ import annotations

from .conversation import Prompted, compose
from .incoming import Adapter, Incoming, platform_of, spoken, subject_for
from .models import answer, build_model, close_model, model_from_config
from .offline import OfflineModel
from .runner import Outcome, Runner, build_adapters, run_bot
from .settings import BotSettings, RunnerSettings
from .split import split_reply
from .turns import Turn, Turns

__all__ = [
    "Adapter",
    "BotSettings",
    "Incoming",
    "OfflineModel",
    "Outcome",
    "Prompted",
    "Runner",
    "RunnerSettings",
    "Turn",
    "Turns",
    "answer",
    "build_adapters",
    "build_model",
    "close_model",
    "compose",
    "model_from_config",
    "platform_of",
    "run_bot",
    "split_reply",
    "spoken",
    "subject_for",
]
