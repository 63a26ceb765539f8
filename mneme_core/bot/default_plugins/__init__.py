"""The bot layer's built-in behaviour, registered as plugins like anyone else's (datasette's
`DEFAULT_PLUGINS`, llm's `default_plugins`), so a plugin can go before any of it. `hooks.ready` registers
them when a bot starts; the engine never loads them.

- `subjects`: the fallback `resolve_subject` (`platform:user_id`), `trylast`.
- `adapters`: the console adapter (`mneme chat`, `mneme run console`).
- `offline`: the offline stand-in model, the provider a bot uses when no model is configured.
"""
