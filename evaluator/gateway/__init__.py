"""The model gateway: the one place that talks to models (litellm, and an openai-SDK transport for
OpenAI-compatible servers), how call errors are classified, how much of a reply is read (capped in
bytes while it is read), and model prices.
"""
