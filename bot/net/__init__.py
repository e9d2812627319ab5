"""Network edges: everything that talks to a server that is not Telegram.

- `fetch`: one polite conditional GET per feed or page, with hard limits
- `guard`: the SSRF guard (every host the client connects to is resolved and checked)
- `capped`: a response body read under a cap, decoded here
- `telegraph`: Telegraph's API (long posts as pages: createAccount, createPage, editPage)
- `model_api`: the operator's language model (OpenAI-compatible chat completions)
"""
