"""Cardavia's command-line client: self-play, interactive play and headless bots."""
