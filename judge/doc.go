// Package judge asks a language model what no rule could decide, behind
// the core's [vouch.Judge] interface, and is built not to be fooled, not to
// cost much, and to fail closed.
//
// Providers ([Provider]) speak the model APIs: package judge/openai any
// OpenAI-compatible chat-completions API (OpenAI, OpenRouter, Ollama, vLLM,
// llama.cpp server, LM Studio), package judge/anthropic the Anthropic
// Messages API. Package judge/fake is a server that speaks both, for tests
// and demonstrations.
package judge
