
use builtin;
use str;

set edit:completion:arg-completer[kubectl-wasctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kubectl-wasctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kubectl-wasctl'= {
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand explain 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes'
            cand simulate 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
            cand capacity 'Count how many more copies of a gang fit, and where; what stops the next copy'
            cand diff 'Compare the plans of two snapshots: which units changed and which changes caused it'
            cand doctor 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)'
            cand tree 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
            cand lint 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)'
            cand snapshot 'Write the loaded objects and cluster facts to one file that `--from` reads back'
            cand version 'Print the version, commit and supported Kubernetes version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-wasctl;explain'= {
            cand --add 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating'
            cand --drain 'Drain these nodes first (cordon; controller-owned pods become pending again)'
            cand --cordon 'Cordon these nodes first'
            cand --add-nodes 'Add N copies of the `--like` node'
            cand --like 'The node `--add-nodes` copies'
            cand --mode '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --exit-code 'Exit with 1 when the target is not schedulable (Waiting, Unschedulable, NeedsPreemption)'
            cand --no-preemption 'Do not simulate preemption: unschedulable units stay unschedulable'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;simulate'= {
            cand --only 'Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored'
            cand --add 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating'
            cand --drain 'Drain these nodes first (cordon; controller-owned pods become pending again)'
            cand --cordon 'Cordon these nodes first'
            cand --add-nodes 'Add N copies of the `--like` node'
            cand --like 'The node `--add-nodes` copies'
            cand --mode '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --no-preemption 'Do not simulate preemption: unschedulable units stay unschedulable'
            cand --devices 'Also show which device goes to which claim, pod and gang (a per-node device map)'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;capacity'= {
            cand --shape 'Copy the gang in this manifest instead: one PodGroup and its pods, one Job (its `spec.scheduling` and pod template), or one Workload with one PodGroup template and its pods'
            cand --max 'The most copies to try'
            cand --by 'Count copies per value of this node label (default: the gang''s topology key)'
            cand --add 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating'
            cand --drain 'Drain these nodes first (cordon; controller-owned pods become pending again)'
            cand --cordon 'Cordon these nodes first'
            cand --add-nodes 'Add N copies of the `--like` node'
            cand --like 'The node `--add-nodes` copies'
            cand --mode '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --no-preemption 'Do not simulate preemption: unschedulable units stay unschedulable'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;diff'= {
            cand --to 'NEW: YAML/JSON files or directories (`-` for stdin). Without it, NEW is the cluster of the current context, or OLD with the what-ifs below applied'
            cand --add 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating'
            cand --drain 'Drain these nodes first (cordon; controller-owned pods become pending again)'
            cand --cordon 'Cordon these nodes first'
            cand --add-nodes 'Add N copies of the `--like` node'
            cand --like 'The node `--add-nodes` copies'
            cand --mode '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --no-preemption 'Do not simulate preemption: unschedulable units stay unschedulable'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;doctor'= {
            cand --fail-on 'Exit 1 when a finding has this severity or a higher one (default: always exit 0)'
            cand --only 'Run only these checks (`WASD001`…); repeatable or comma-separated'
            cand --skip 'Skip these checks; repeatable or comma-separated'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --list-checks 'Print the check table and exit'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;tree'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;lint'= {
            cand -f 'More files, directories or `-`, as `kubectl apply -f` takes them'
            cand --filename 'More files, directories or `-`, as `kubectl apply -f` takes them'
            cand --fail-on 'Exit 1 when a finding has this severity or a higher one'
            cand --target-version 'The Kubernetes version to lint for (only `1.37`)'
            cand --config 'Rule selection and severities (`lint: {enable, disable, severity, targetVersion}`)'
            cand -o 'Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`. Repeatable'
            cand --output 'Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`. Repeatable'
            cand --explain 'Print the documentation of a rule (`WAS101` or `invalid-object-name`) and exit'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand --strict 'Report fields the Kubernetes 1.37 types do not have (`WAS003`)'
            cand --reject-unknown 'Kinds wasctl does not check are errors (default: "not checked" info findings)'
            cand --cluster 'Also look objects up in the current kubeconfig context (cluster-aware rules)'
            cand --feasibility 'Simulate the linted gangs on the cluster''s nodes with nothing running (`WAS312`; needs `--from`, `--demo` or `--cluster`)'
            cand --list-rules 'Print the rule table and exit'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;snapshot'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --file 'Write to this file instead of stdout'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;version'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;help'= {
            cand explain 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes'
            cand simulate 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
            cand capacity 'Count how many more copies of a gang fit, and where; what stops the next copy'
            cand diff 'Compare the plans of two snapshots: which units changed and which changes caused it'
            cand doctor 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)'
            cand tree 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
            cand lint 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)'
            cand snapshot 'Write the loaded objects and cluster facts to one file that `--from` reads back'
            cand version 'Print the version, commit and supported Kubernetes version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-wasctl;help;explain'= {
        }
        &'kubectl-wasctl;help;simulate'= {
        }
        &'kubectl-wasctl;help;capacity'= {
        }
        &'kubectl-wasctl;help;diff'= {
        }
        &'kubectl-wasctl;help;doctor'= {
        }
        &'kubectl-wasctl;help;tree'= {
        }
        &'kubectl-wasctl;help;lint'= {
        }
        &'kubectl-wasctl;help;snapshot'= {
        }
        &'kubectl-wasctl;help;version'= {
        }
        &'kubectl-wasctl;help;help'= {
        }
    ]
    $completions[$command]
}
