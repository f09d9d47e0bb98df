#!/bin/sh
# Write the Chinese pages of the Vite set (bench/data/vite_docs/zh/) from a clone of vitejs/docs-cn.
# They are not committed: vitejs/docs-cn is under CC BY-NC-SA 4.0, this repository under Apache-2.0.
# Usage: sh bench/data/vite_docs_zh.sh PATH_TO_DOCS_CN_GIT_DIR   (a clone or bare mirror of vitejs/docs-cn)
set -eu
src=$1
commit=e2456079a4d366282206969b7dd819e2139d2035
cd "$(dirname "$0")/vite_docs"
for page in $(cd en && find . -name '*.md' | sort); do
    page=${page#./}
    mkdir -p "zh/$(dirname "$page")"
    git --git-dir="$src" show "$commit:$page" > "zh/$page"
done
git --git-dir="$src" show "$commit:LICENSE" > LICENSE.docs-cn
echo "wrote $(find zh -name '*.md' | wc -l) Chinese pages"
