"""Measuring a remote tier from outside: stream chat completions, read the steps, conclude.

- endpoint    where a tier answers and where its API key comes from (env var or keyring; never stored)
- client      what every request shares: limits, body, retry wait, one-line messages, an event into the record
- guard       the cancel poll, read caps, key scrubbing, absurd usage
- events      what a request recorded: events with arrival times, usage, what the server reported
- run_file    the raw run as JSON lines, so an analysis can be re-run without a request
- run_counts  the server's own counts in a run file per class, for the metrics import (the file's one reader)
- steps       tokens per verify step from the stream (style detection, histogram, K, alpha)
- merges      steps a late (busy) client read as one: found, left out, or the run's timing called unreliable
- stalls      the client's own scheduling delay, measured against a timer while it reads
- run_k       the run's K: the timing's, the server's draft tokens over the steps seen, or the K it reports
- verdict     speculative: yes / no / inconclusive, tested against one token per step
- reported    the server's own acceptance figures, converted to per-token alpha; K from llama.cpp's draft tokens
- identity    temperature-0 output identity against a baseline tier
- speed       time to first token, decode tokens/s, measured speedup
- filler      the neutral filler document that puts a prompt at 8K or 32K context
- plan        the requests a probe will send, their tokens and cost
- run         the probe as a cancellable generator, one request at a time on the event loop below
- load        the probe at several concurrencies: parallel streams per level, one level at a time, cost per level
- load_loop   the probe's streams on one asyncio event loop: its thread, and one phase (a tier at a level)
- loop_client one streamed request on that loop (deadlines, retries, no cross-host redirects), stamped as its
              bytes arrive (the kernel's receive time on Linux), parsed after the stream ends
- by_load     speed, tokens per step, alpha and speedup per concurrency level; throttled levels marked
- batching    the demo server's batch: one step serves every active stream, its time by a stated rule
- demo_server an OpenAI-compatible ASGI app that streams an injected generator's steps (serve-demo)
- demo_stream what one demo answer holds and how each style cuts it into chunks; the server's own counts
- loopback    runs an ASGI app with uvicorn on a thread, bound to 127.0.0.1 (serve-demo, the tests)

Imports the core and the workbook, never another wing (sampling's loop is injected into the demo server).
"""
