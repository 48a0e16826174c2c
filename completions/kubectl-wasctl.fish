# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_wasctl_global_optspecs
    string join \n kubeconfig= context= n/namespace= A/all-namespaces from= demo feature-gates= color= h/help V/version
end

function __fish_kubectl_wasctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_wasctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_wasctl_using_subcommand
    set -l cmd (__fish_kubectl_wasctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "explain" -d 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "simulate" -d 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "capacity" -d 'Count how many more copies of a gang fit, and where; what stops the next copy'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "diff" -d 'Compare the plans of two snapshots: which units changed and which changes caused it'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "doctor" -d 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "tree" -d 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "lint" -d 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "snapshot" -d 'Write the loaded objects and cluster facts to one file that `--from` reads back'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "version" -d 'Print the version, commit and supported Kubernetes version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l add -d 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l drain -d 'Drain these nodes first (cordon; controller-owned pods become pending again)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l cordon -d 'Cordon these nodes first' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l add-nodes -d 'Add N copies of the `--like` node' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l like -d 'The node `--add-nodes` copies' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l mode -d '`exhaustive`: filter and score every node; `compat`: upstream\'s node sampling' -r -f -a "exhaustive\t'Filter and score every node'
compat\t'Upstream\'s adaptive `percentageOfNodesToScore` sampling'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l exit-code -d 'Exit with 1 when the target is not schedulable (Waiting, Unschedulable, NeedsPreemption)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l no-preemption -d 'Do not simulate preemption: unschedulable units stay unschedulable'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l only -d 'Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l add -d 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l drain -d 'Drain these nodes first (cordon; controller-owned pods become pending again)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l cordon -d 'Cordon these nodes first' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l add-nodes -d 'Add N copies of the `--like` node' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l like -d 'The node `--add-nodes` copies' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l mode -d '`exhaustive`: filter and score every node; `compat`: upstream\'s node sampling' -r -f -a "exhaustive\t'Filter and score every node'
compat\t'Upstream\'s adaptive `percentageOfNodesToScore` sampling'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s o -l output -d 'Output format' -r -f -a "text\t'A table'
wide\t'A table with more columns'
name\t'One `kind.group/name` per line'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l no-preemption -d 'Do not simulate preemption: unschedulable units stay unschedulable'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l devices -d 'Also show which device goes to which claim, pod and gang (a per-node device map)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l shape -d 'Copy the gang in this manifest instead: one PodGroup and its pods, one Job (its `spec.scheduling` and pod template), or one Workload with one PodGroup template and its pods' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l max -d 'The most copies to try' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l by -d 'Count copies per value of this node label (default: the gang\'s topology key)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l add -d 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l drain -d 'Drain these nodes first (cordon; controller-owned pods become pending again)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l cordon -d 'Cordon these nodes first' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l add-nodes -d 'Add N copies of the `--like` node' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l like -d 'The node `--add-nodes` copies' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l mode -d '`exhaustive`: filter and score every node; `compat`: upstream\'s node sampling' -r -f -a "exhaustive\t'Filter and score every node'
compat\t'Upstream\'s adaptive `percentageOfNodesToScore` sampling'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l no-preemption -d 'Do not simulate preemption: unschedulable units stay unschedulable'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand capacity" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l to -d 'NEW: YAML/JSON files or directories (`-` for stdin). Without it, NEW is the cluster of the current context, or OLD with the what-ifs below applied' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l add -d 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l drain -d 'Drain these nodes first (cordon; controller-owned pods become pending again)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l cordon -d 'Cordon these nodes first' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l add-nodes -d 'Add N copies of the `--like` node' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l like -d 'The node `--add-nodes` copies' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l mode -d '`exhaustive`: filter and score every node; `compat`: upstream\'s node sampling' -r -f -a "exhaustive\t'Filter and score every node'
compat\t'Upstream\'s adaptive `percentageOfNodesToScore` sampling'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l no-preemption -d 'Do not simulate preemption: unschedulable units stay unschedulable'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l fail-on -d 'Exit 1 when a finding has this severity or a higher one (default: always exit 0)' -r -f -a "error\t'Exit 1 when an error is found'
warning\t'Exit 1 when an error or a warning is found'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l only -d 'Run only these checks (`WASD001`…); repeatable or comma-separated' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l skip -d 'Skip these checks; repeatable or comma-separated' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l list-checks -d 'Print the check table and exit'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -s f -l filename -d 'More files, directories or `-`, as `kubectl apply -f` takes them' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l fail-on -d 'Exit 1 when a finding has this severity or a higher one' -r -f -a "info\t'Worth knowing; never fails CI unless `--fail-on info`'
warning\t'Probably wrong: the object is accepted but will not behave as intended'
error\t'The API server rejects it, or it can never work'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l target-version -d 'The Kubernetes version to lint for (only `1.37`)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l config -d 'Rule selection and severities (`lint: {enable, disable, severity, targetVersion}`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -s o -l output -d 'Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`. Repeatable' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l explain -d 'Print the documentation of a rule (`WAS101` or `invalid-object-name`) and exit' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l strict -d 'Report fields the Kubernetes 1.37 types do not have (`WAS003`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l reject-unknown -d 'Kinds wasctl does not check are errors (default: "not checked" info findings)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l cluster -d 'Also look objects up in the current kubeconfig context (cluster-aware rules)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l feasibility -d 'Simulate the linted gangs on the cluster\'s nodes with nothing running (`WAS312`; needs `--from`, `--demo` or `--cluster`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l list-rules -d 'Print the rule table and exit'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s o -l output -d 'Output format' -r -f -a "yaml\t'A YAML document stream'
json\t'One JSON `List`'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l file -d 'Write to this file instead of stdout' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l feature-gates -d 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "explain" -d 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "simulate" -d 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "capacity" -d 'Count how many more copies of a gang fit, and where; what stops the next copy'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "diff" -d 'Compare the plans of two snapshots: which units changed and which changes caused it'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "doctor" -d 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "tree" -d 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "lint" -d 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "snapshot" -d 'Write the loaded objects and cluster facts to one file that `--from` reads back'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "version" -d 'Print the version, commit and supported Kubernetes version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from explain simulate capacity diff doctor tree lint snapshot version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
