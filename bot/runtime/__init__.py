"""What every process needs before it does anything: settings, clock, logs, metrics, languages.

- `config`: settings from the environment, validated once at start
- `clock`: the one clock (tests pass a fake one)
- `logs`: one line per event, optional JSON, never a secret
- `metrics`: Prometheus metrics
- `eventloop`: the event loop every command runs on (uvloop by default)
- `i18n`: the chat's language (Babel catalogs → translators)
"""
