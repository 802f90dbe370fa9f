#!/usr/bin/env python3
"""make_sets.py MIRRORS_DIR > sets.json — the package sets of sets.json, read
from the package.json files of public repositories (snapshots fetched with
git: MIRRORS_DIR/OWNER+NAME/repo). One set per file: its `dependencies`, or
with `+dev` also its `devDependencies`; specs npm cannot fetch from a
registry (file:, link:, workspace:, git and URL specs) are left out and
counted. Run once when the sets are chosen; the test reads sets.json only."""
import json
import os
import subprocess
import sys

# (set id, repo, path, with devDependencies)
CHOSEN = [
    ("vite-react-ts", "vitejs/vite", "packages/create-vite/template-react-ts/package.json", True),
    ("vite-vue-ts", "vitejs/vite", "packages/create-vite/template-vue-ts/package.json", True),
    ("vite-svelte-ts", "vitejs/vite", "packages/create-vite/template-svelte-ts/package.json", True),
    ("vite-preact", "vitejs/vite", "packages/create-vite/template-preact/package.json", True),
    ("vite-solid-ts", "vitejs/vite", "packages/create-vite/template-solid-ts/package.json", True),
    ("vite-lit-ts", "vitejs/vite", "packages/create-vite/template-lit-ts/package.json", True),
    ("vite-qwik-ts", "vitejs/vite", "packages/create-vite/template-qwik-ts/package.json", True),
    ("vite-vanilla-ts", "vitejs/vite", "packages/create-vite/template-vanilla-ts/package.json", True),
    ("cra-template", "facebook/create-react-app", "packages/cra-template/package.json", False),
    ("cra-react-scripts", "facebook/create-react-app", "packages/react-scripts/package.json", False),
    ("cra-docusaurus-website", "facebook/create-react-app", "docusaurus/website/package.json", False),
    ("cra-dev-utils", "facebook/create-react-app", "packages/react-dev-utils/package.json", False),
    ("cra-eslint-config", "facebook/create-react-app", "packages/eslint-config-react-app/package.json", False),
    ("gatsby-starter-default", "gatsbyjs/gatsby-starter-default", "package.json", False),
    ("hardhat-boilerplate", "NomicFoundation/hardhat-boilerplate", "package.json", True),
    ("hardhat-boilerplate-frontend", "NomicFoundation/hardhat-boilerplate", "frontend/package.json", False),
    ("nest-typescript-starter", "nestjs/typescript-starter", "package.json", False),
    ("nest-typescript-starter-dev", "nestjs/typescript-starter", "package.json", True),
    ("langchain-nextjs-template", "langchain-ai/langchain-nextjs-template", "package.json", False),
    ("koa-examples", "koajs/examples", "package.json", False),
    ("fastify-demo", "fastify/demo", "package.json", False),
    ("storybook-design-system", "storybookjs/design-system", "package.json", False),
    ("firebase-auth", "firebase/quickstart-js", "auth/package.json", True),
    ("firebase-functions", "firebase/quickstart-js", "functions/functions/package.json", False),
    ("firebase-ai-react", "firebase/quickstart-js", "ai/ai-react-app/package.json", False),
    ("firebase-firestore", "firebase/quickstart-js", "firestore/package.json", True),
    ("cdk-amplify-console-app", "aws-samples/aws-cdk-examples", "typescript/amplify-console-app/package.json", True),
    ("cdk-api-cors-lambda-crud", "aws-samples/aws-cdk-examples", "typescript/api-cors-lambda-crud-dynamodb/package.json", True),
    ("cdk-api-websocket-lambda", "aws-samples/aws-cdk-examples", "typescript/api-websocket-lambda-dynamodb/package.json", True),
    ("socketio-chat", "socketio/socket.io", "examples/chat/package.json", False),
    ("socketio-angular-todomvc", "socketio/socket.io", "examples/angular-todomvc/package.json", False),
    ("socketio-crud-angular-client", "socketio/socket.io", "examples/basic-crud-application/angular-client/package.json", False),
    ("socketio-crud-vue-client", "socketio/socket.io", "examples/basic-crud-application/vue-client/package.json", False),
    ("socketio-crud-server", "socketio/socket.io", "examples/basic-crud-application/server/package.json", True),
    ("socketio-create-react-app", "socketio/socket.io", "examples/create-react-app-example/package.json", False),
    ("socketio-expo", "socketio/socket.io", "examples/expo-example/package.json", False),
    ("socketio-nestjs", "socketio/socket.io", "examples/nestjs-example/package.json", False),
    ("socketio-nextjs-app-router", "socketio/socket.io", "examples/nextjs-app-router/package.json", False),
    ("socketio-nextjs-pages-router", "socketio/socket.io", "examples/nextjs-pages-router/package.json", False),
    ("socketio-nuxt", "socketio/socket.io", "examples/nuxt-example/package.json", False),
    ("socketio-express-session-ts", "socketio/socket.io", "examples/express-session-example/ts/package.json", True),
    ("socketio-passport-jwt-ts", "socketio/socket.io", "examples/passport-jwt-example/ts/package.json", True),
    ("socketio-private-messaging", "socketio/socket.io", "examples/private-messaging/package.json", False),
    ("socketio-webpack-build", "socketio/socket.io", "examples/webpack-build/package.json", True),
    ("socketio-postgres-adapter", "socketio/socket.io", "examples/postgres-adapter-example/package.json", False),
    ("socketio-react-native", "socketio/socket.io", "examples/ReactNativeExample/package.json", False),
]

NOT_REGISTRY = ("file:", "link:", "workspace:", "git", "http:", "https:", "github:", "portal:")


def main(mirrors):
    out = []
    for sid, repo, path, dev in CHOSEN:
        gdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        commit = subprocess.check_output(["git", "-C", gdir, "rev-parse", "HEAD"], text=True).strip()
        doc = json.loads(subprocess.check_output(["git", "-C", gdir, "show", "%s:%s" % (commit, path)], text=True))
        deps, dropped = {}, []
        for key in ("dependencies", "devDependencies") if dev else ("dependencies",):
            for name, rng in sorted((doc.get(key) or {}).items()):
                if rng.startswith(NOT_REGISTRY) or "/" in rng and not rng.startswith("npm:"):
                    dropped.append("%s@%s" % (name, rng))
                    continue
                deps.setdefault(name, rng)
        if not deps:
            continue
        out.append({"id": sid, "source": "https://github.com/%s/blob/%s/%s" % (repo, commit, path),
                    "fields": "dependencies+devDependencies" if dev else "dependencies",
                    "dependencies": deps, "dropped": dropped})
    json.dump({"sets": out}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
