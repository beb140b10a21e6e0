"""`python -m crisp.server`: serve with settings from the environment."""

from crisp.server.main import run

if __name__ == "__main__":
    run()
