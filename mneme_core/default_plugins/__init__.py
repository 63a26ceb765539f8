"""Mneme's built-in behaviour, registered as plugins like anyone else's (datasette's `DEFAULT_PLUGINS`,
llm's `default_plugins`), so a plugin can go before any of it.

- `subjects`: the fallback `resolve_subject` (`platform:user_id`), `trylast`.
- `adapters`: the console adapter (`mneme chat`).
- `offline`: the offline stand-in model, the provider a bot uses when no model is configured.

`mneme_core.plugins.DEFAULT_PLUGINS` lists these modules; `make_manager` registers them by name.
"""
