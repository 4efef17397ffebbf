"""The browser client: static files the server serves (see :mod:`server.net.static`)."""
