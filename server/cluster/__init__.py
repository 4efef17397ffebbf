"""Several processes on one Redis: table leases and takeover, routing between processes."""
