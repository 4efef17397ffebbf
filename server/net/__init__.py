"""The network edge: WebSocket connections, framing, send queues, keepalive, static files."""
