"""LLM APIs: chat and completion models behind an OpenAI-compatible HTTP API.

`openai_api`: the client (`OpenAIGenerator`, `openai_generator`), with `http_deadline`
bounding a whole request; `local_server`: a server process started on this machine;
`serving`: the SmolLM2 recipe (``transformers serve``); `generation_cache`: answers stored
on disk; `chat_classifier`: a chat model as a classifier; `answers`: scorers of answers.
"""
