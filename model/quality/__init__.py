"""Quality at a temperature (docs/design/quality.md): does a fast tier sample from the model it reports?

``score_test``: with logprobs, the draws against the distribution the stream reports (the score of the sharpening
family q ∝ p^beta, prompts as clusters), with the least sharpening the run had 80% power to see; ``sample_test``:
without them, the fast tier's samples against the baseline's on the same prompts (a permutation test, the prompt
as the unit); ``verdict``: lossy / lossless / undecided in words; ``simulate``: seeded samplers for the tests and
the benchmark. Part of the core: plain numpy, scipy imported inside the functions; it imports no wing.
"""
