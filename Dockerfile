# Masques: the web client built with Node, then a slim Python image with the package.
#   docker build -t masques .
#   docker compose -f deploy/compose.yaml up      (the whole site: see docs/deployment.md)

FROM node:20-bookworm-slim AS client
WORKDIR /src
COPY web/package.json web/package-lock.json web/
RUN cd web && npm ci --no-audit --no-fund --loglevel=error
COPY web web
# The views import data files the engines ship.
COPY src/masques/games src/masques/games
RUN cd web && npm run build

FROM python:3.11-slim-bookworm AS wheel
WORKDIR /src
COPY . .
COPY --from=client /src/src/masques/server/static src/masques/server/static
# No web/ sources here: the build backend packs the client built above.
RUN rm -rf web && pip wheel --no-deps -w /dist .

FROM python:3.11-slim-bookworm
RUN useradd --create-home masques
COPY --from=wheel /dist /dist
RUN pip install --no-cache-dir "$(ls /dist/masques-*.whl)[site]" && rm -rf /dist
# What the bots compile on first use (the Mascarade endgame solver), compiled now into the package's
# caches, so a new container's first such move does not wait for it.  A machine of another CPU
# compiles again on first use, into the user's cache.
RUN python -c 'from masques.ai.parts import warm_up; warm_up()'
USER masques
ENV MASQUES_HOST=0.0.0.0 MASQUES_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('MASQUES_PORT', '8000') + '/healthz')"
CMD ["masques", "serve"]
