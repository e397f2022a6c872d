"""The game server: lobby over REST, live matches over WebSocket, bots in seats, durable storage."""
