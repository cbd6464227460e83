# bash completion for metawarp: its commands, each command's options, the
# values of options that take words, and file names for paths (folders only
# where a folder is asked for); also for metawarp called through links named
# kraken2 and kraken2-build, which run those commands. Installed as
# share/bash-completion/completions/metawarp; for a checkout:
#   source completions/metawarp.bash
# tests/cli/cli_install_docs.sh checks the option lists against `--help`.

_metawarp() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi

  local commands="build query classify info profile-db serve kraken2 kraken2-build"
  local command="" i
  case ${words[0]##*/} in
    kraken2 | kraken2-build) command=${words[0]##*/} ;;
  esac
  for ((i = 1; i < cword; i++)); do
    [ -z "$command" ] || break
    case ${words[i]} in
      build | query | classify | info | profile-db | serve | kraken2 | kraken2-build)
        command=${words[i]}
        break
        ;;
    esac
  done

  local build_options="--taxonomy --gtdb-taxonomy --no-taxonomy --allow-empty --allow-no-taxa
    --seqid2taxid --accession2taxid -k --kmer-length -w --window-length -s --sketch-size
    --sampling --max-locations-per-feature --remove-overpopulated-features -t --threads -q --quiet
    -v --verbose --device --table --batch-size --max-gpu-memory --gpu-memory-limit
    --table-capacity --gpu --gpus --shards-per-gpu --shards --sync --no-sync --summary-json --partitions
    --partition-size -h --help"
  local query_options="--samples --sample --output-dir --interleaved -o --output
    --kraken-output --report --abundance --abundance-rank --abundance-em --bracken-output --top-hits
    --confidence --report-minimizer-data --max-candidates --hit-min --match-min --hit-diff --lowest
    --highest --insert-size --batch-size -t --threads --device --gpu --gpus --shards-per-gpu
    --gpu-lanes --partitions --max-memory --hit-memory --paired --gzip-compressed
    --bzip2-compressed --quick --memory-mapping --minimum-hit-groups --minimum-base-quality
    --use-names --report-zero-counts --use-mpa-style --classified-out --unclassified-out
    --mpi --summary-json --server -q --quiet -v --verbose -h --help"
  local kraken2_options="--db --threads --output --report --report-minimizer-data --confidence
    --only-classified-output --paired --gzip-compressed --bzip2-compressed --quick
    --memory-mapping --minimum-hit-groups --minimum-base-quality --use-names
    --report-zero-counts --use-mpa-style --classified-out --unclassified-out --version -h --help"
  local kraken2_build_options="--build --db --threads --fast-build --masking --no-masking
    --skip-maps --use-ftp --load-factor --block-size --subblock-size --minimum-bits-for-taxid
    --kmer-len --minimizer-len --minimizer-spaces --max-db-size --protein --download-taxonomy
    --download-library --standard --special --add-to-library --clean --version -h --help"
  local info_options="--targets --taxa --unranked --gpus --shards-per-gpu --gpu-memory -h --help"
  local profile_db_options="--read-length --paired --fragment-length --stride --error-rate -t
    --threads --device --shards-per-gpu --partitions --max-memory -q --quiet -h --help"
  local serve_options="--socket -t --threads --device --gpu --gpus --shards-per-gpu --gpu-lanes
    --partitions --max-memory --hit-memory -q --quiet --request-seconds -h --help"
  local ranks="sequence subspecies species genus family order class phylum kingdom domain root"

  # The value of the option before the cursor.
  case $prev in
    --taxonomy | --output-dir)
      COMPREPLY=($(compgen -d -- "$cur"))
      return
      ;;
    --db)  # kraken2: a folder or a database file; kraken2-build: a folder
      COMPREPLY=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null
      return
      ;;
    --device)
      COMPREPLY=($(compgen -W "auto cpu gpu" -- "$cur"))
      return
      ;;
    --table)
      COMPREPLY=($(compgen -W "multi-value bucket-list" -- "$cur"))
      return
      ;;
    --sampling)
      COMPREPLY=($(compgen -W "window scaled: minimizer:" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return
      ;;
    --lowest | --highest | --abundance-rank)
      COMPREPLY=($(compgen -W "$ranks" -- "$cur"))
      return
      ;;
    -k | --kmer-length | -w | --window-length | -s | --sketch-size | --max-locations-per-feature | \
      -t | --threads | --batch-size | --max-gpu-memory | --gpu-memory-limit | --table-capacity | \
      --gpu | --gpus | --shards-per-gpu | --shards | --partitions | --partition-size | \
      --gpu-memory | --confidence | --max-candidates | --hit-min | --match-min | --hit-diff | --insert-size | \
      --gpu-lanes | --read-length | --fragment-length | --stride | --max-memory | --hit-memory | --minimum-hit-groups | --minimum-base-quality | \
      --load-factor | --block-size | --subblock-size | --minimum-bits-for-taxid | --kmer-len | \
      --minimizer-len | --minimizer-spaces | --max-db-size)
      return  # a number: nothing to offer
      ;;
    --gtdb-taxonomy | --seqid2taxid | --accession2taxid | --summary-json | --samples | -o | \
      --output | --kraken-output | --report | --abundance | --bracken-output | --classified-out | \
      --unclassified-out | --server | --socket | --add-to-library)
      COMPREPLY=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null
      return
      ;;
  esac

  if [ -z "$command" ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    local options
    case $command in
      build) options=$build_options ;;
      query | classify) options=$query_options ;;
      info) options=$info_options ;;
      profile-db) options=$profile_db_options ;;
      serve) options=$serve_options ;;
      kraken2) options=$kraken2_options ;;
      kraken2-build) options=$kraken2_build_options ;;
    esac
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  # The database, references, reads: paths.
  COMPREPLY=($(compgen -f -- "$cur"))
  compopt -o filenames 2>/dev/null
}
complete -F _metawarp metawarp kraken2 kraken2-build
