"""The model gateway: the one place that talks to models (litellm, and an openai-SDK transport for
OpenAI-compatible servers), how call errors are classified, and model prices.
"""
