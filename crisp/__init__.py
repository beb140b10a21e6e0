"""Crisp: a self-hostable server for the card game Crisp."""
