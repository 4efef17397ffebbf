"""For operators: metrics, structured logs, the event loop's choice."""
