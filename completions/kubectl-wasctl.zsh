#compdef kubectl-wasctl

autoload -U is-at-least

_kubectl-wasctl() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kubectl-wasctl_commands" \
"*::: :->kubectl-wasctl" \
&& ret=0
    case $state in
    (kubectl-wasctl)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-wasctl-command-$line[1]:"
        case $line[1] in
            (explain)
_arguments "${_arguments_options[@]}" : \
'*--add=[Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating]:FILE:_files' \
'*--drain=[Drain these nodes first (cordon; controller-owned pods become pending again)]:NODE:_default' \
'*--cordon=[Cordon these nodes first]:NODE:_default' \
'--add-nodes=[Add N copies of the \`--like\` node]:N:_default' \
'--like=[The node \`--add-nodes\` copies]:NODE:_default' \
'--mode=[\`exhaustive\`\: filter and score every node; \`compat\`\: upstream'\''s node sampling]:MODE:((exhaustive\:"Filter and score every node"
compat\:"Upstream'\''s adaptive \`percentageOfNodesToScore\` sampling"))' \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--exit-code[Exit with 1 when the target is not schedulable (Waiting, Unschedulable, NeedsPreemption)]' \
'--no-preemption[Do not simulate preemption\: unschedulable units stay unschedulable]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':target -- `pod/`, `podgroup/` (`pg/`), `compositepodgroup/` (`cpg/`), `workload/` (all its groups) or `job/` (its group), followed by the name:_default' \
&& ret=0
;;
(simulate)
_arguments "${_arguments_options[@]}" : \
'--only=[Simulate only this unit (\`pg/NAME\`, \`cpg/NAME\`, \`pod/NAME\`); the rest of the queue is ignored]:TYPE/NAME:_default' \
'*--add=[Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating]:FILE:_files' \
'*--drain=[Drain these nodes first (cordon; controller-owned pods become pending again)]:NODE:_default' \
'*--cordon=[Cordon these nodes first]:NODE:_default' \
'--add-nodes=[Add N copies of the \`--like\` node]:N:_default' \
'--like=[The node \`--add-nodes\` copies]:NODE:_default' \
'--mode=[\`exhaustive\`\: filter and score every node; \`compat\`\: upstream'\''s node sampling]:MODE:((exhaustive\:"Filter and score every node"
compat\:"Upstream'\''s adaptive \`percentageOfNodesToScore\` sampling"))' \
'-o+[Output format]:OUTPUT:((text\:"A table"
wide\:"A table with more columns"
name\:"One \`kind.group/name\` per line"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"A table"
wide\:"A table with more columns"
name\:"One \`kind.group/name\` per line"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--no-preemption[Do not simulate preemption\: unschedulable units stay unschedulable]' \
'--devices[Also show which device goes to which claim, pod and gang (a per-node device map)]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(capacity)
_arguments "${_arguments_options[@]}" : \
'--shape=[Copy the gang in this manifest instead\: one PodGroup and its pods, one Job (its \`spec.scheduling\` and pod template), or one Workload with one PodGroup template and its pods]:FILE:_files' \
'--max=[The most copies to try]:N:_default' \
'--by=[Count copies per value of this node label (default\: the gang'\''s topology key)]:LABEL:_default' \
'*--add=[Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating]:FILE:_files' \
'*--drain=[Drain these nodes first (cordon; controller-owned pods become pending again)]:NODE:_default' \
'*--cordon=[Cordon these nodes first]:NODE:_default' \
'--add-nodes=[Add N copies of the \`--like\` node]:N:_default' \
'--like=[The node \`--add-nodes\` copies]:NODE:_default' \
'--mode=[\`exhaustive\`\: filter and score every node; \`compat\`\: upstream'\''s node sampling]:MODE:((exhaustive\:"Filter and score every node"
compat\:"Upstream'\''s adaptive \`percentageOfNodesToScore\` sampling"))' \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--no-preemption[Do not simulate preemption\: unschedulable units stay unschedulable]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::target -- The gang to copy\: `podgroup/` (`pg/`), `job/` or `workload/` (one PodGroup), then the name:_default' \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
'*--to=[NEW\: YAML/JSON files or directories (\`-\` for stdin). Without it, NEW is the cluster of the current context, or OLD with the what-ifs below applied]:PATH:_files' \
'*--add=[Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating]:FILE:_files' \
'*--drain=[Drain these nodes first (cordon; controller-owned pods become pending again)]:NODE:_default' \
'*--cordon=[Cordon these nodes first]:NODE:_default' \
'--add-nodes=[Add N copies of the \`--like\` node]:N:_default' \
'--like=[The node \`--add-nodes\` copies]:NODE:_default' \
'--mode=[\`exhaustive\`\: filter and score every node; \`compat\`\: upstream'\''s node sampling]:MODE:((exhaustive\:"Filter and score every node"
compat\:"Upstream'\''s adaptive \`percentageOfNodesToScore\` sampling"))' \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--no-preemption[Do not simulate preemption\: unschedulable units stay unschedulable]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(doctor)
_arguments "${_arguments_options[@]}" : \
'--fail-on=[Exit 1 when a finding has this severity or a higher one (default\: always exit 0)]:SEVERITY:((error\:"Exit 1 when an error is found"
warning\:"Exit 1 when an error or a warning is found"))' \
'*--only=[Run only these checks (\`WASD001\`…); repeatable or comma-separated]:ID:_default' \
'*--skip=[Skip these checks; repeatable or comma-separated]:ID:_default' \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--list-checks[Print the check table and exit]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(tree)
_arguments "${_arguments_options[@]}" : \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::target -- Show one object'\''s chain\: `workload/`, `compositepodgroup/` (`cpg/`), `podgroup/` (`pg/`), `pod/`, `job/`, `resourceclaim/` followed by the name:_default' \
&& ret=0
;;
(lint)
_arguments "${_arguments_options[@]}" : \
'*-f+[More files, directories or \`-\`, as \`kubectl apply -f\` takes them]:PATH:_files' \
'*--filename=[More files, directories or \`-\`, as \`kubectl apply -f\` takes them]:PATH:_files' \
'--fail-on=[Exit 1 when a finding has this severity or a higher one]:SEVERITY:((info\:"Worth knowing; never fails CI unless \`--fail-on info\`"
warning\:"Probably wrong\: the object is accepted but will not behave as intended"
error\:"The API server rejects it, or it can never work"))' \
'--target-version=[The Kubernetes version to lint for (only \`1.37\`)]:VERSION:_default' \
'--config=[Rule selection and severities (\`lint\: {enable, disable, severity, targetVersion}\`)]:FILE:_files' \
'*-o+[Output format, optionally to a file\: \`text\`, \`json\`, \`sarif=out.sarif\`, \`junit=…\`, \`github\`. Repeatable]:FORMAT[=FILE]:_default' \
'*--output=[Output format, optionally to a file\: \`text\`, \`json\`, \`sarif=out.sarif\`, \`junit=…\`, \`github\`. Repeatable]:FORMAT[=FILE]:_default' \
'--explain=[Print the documentation of a rule (\`WAS101\` or \`invalid-object-name\`) and exit]:RULE:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'--strict[Report fields the Kubernetes 1.37 types do not have (\`WAS003\`)]' \
'--reject-unknown[Kinds wasctl does not check are errors (default\: "not checked" info findings)]' \
'--cluster[Also look objects up in the current kubeconfig context (cluster-aware rules)]' \
'--feasibility[Simulate the linted gangs on the cluster'\''s nodes with nothing running (\`WAS312\`; needs \`--from\`, \`--demo\` or \`--cluster\`)]' \
'(--explain)--list-rules[Print the rule table and exit]' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Files, directories (recursive) or `-` for stdin:_files' \
&& ret=0
;;
(snapshot)
_arguments "${_arguments_options[@]}" : \
'-o+[Output format]:OUTPUT:((yaml\:"A YAML document stream"
json\:"One JSON \`List\`"))' \
'--output=[Output format]:OUTPUT:((yaml\:"A YAML document stream"
json\:"One JSON \`List\`"))' \
'--file=[Write to this file instead of stdout]:FILE:_files' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
'-o+[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--output=[Output format]:OUTPUT:((text\:"Human-readable text"
json\:"JSON (\`apiVersion\: wasctl.dev/v1alpha1\`)"
yaml\:"YAML, the same data as JSON"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \`KUBECONFIG\`, then \`~/.kube/config\`)]:FILE:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'-n+[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'--namespace=[The namespace to show (live default\: the context'\''s namespace)]:NAME:_default' \
'(--demo)*--from=[Read objects from YAML/JSON files or directories instead of a cluster (\`-\` for stdin)]:PATH:_files' \
'*--feature-gates=[Override feature gates for every component, e.g. \`GenericWorkload=true,CompositePodGroup=false\` (may be repeated; later values win)]:GATES:_default' \
'--color=[When to use colors]:COLOR:((auto\:"Color on a terminal when \`NO_COLOR\` is unset"
always\:"Always color"
never\:"Never color"))' \
'-A[Show every namespace]' \
'--all-namespaces[Show every namespace]' \
'--demo[Use the embedded demo cluster]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_kubectl-wasctl__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-wasctl-help-command-$line[1]:"
        case $line[1] in
            (explain)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(simulate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(capacity)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(doctor)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(tree)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(lint)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(snapshot)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_kubectl-wasctl_commands] )) ||
_kubectl-wasctl_commands() {
    local commands; commands=(
'explain:Say why a gang is (or would be) unschedulable, with the numbers and verified fixes' \
'simulate:Dry-run kube-scheduler 1.37 over the snapshot\: where every pending gang would land' \
'capacity:Count how many more copies of a gang fit, and where; what stops the next copy' \
'diff:Compare the plans of two snapshots\: which units changed and which changes caused it' \
'doctor:Find what is broken or leaking in the cluster\: orphans, skew, gang health, DRA (\`WASD###\`)' \
'tree:Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status' \
'lint:Check manifests against the 1.37 WAS validation and cross-object rules (\`WAS###\`)' \
'snapshot:Write the loaded objects and cluster facts to one file that \`--from\` reads back' \
'version:Print the version, commit and supported Kubernetes version' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-wasctl commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__capacity_commands] )) ||
_kubectl-wasctl__subcmd__capacity_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl capacity commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__diff_commands] )) ||
_kubectl-wasctl__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl diff commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__doctor_commands] )) ||
_kubectl-wasctl__subcmd__doctor_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl doctor commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__explain_commands] )) ||
_kubectl-wasctl__subcmd__explain_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl explain commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help_commands] )) ||
_kubectl-wasctl__subcmd__help_commands() {
    local commands; commands=(
'explain:Say why a gang is (or would be) unschedulable, with the numbers and verified fixes' \
'simulate:Dry-run kube-scheduler 1.37 over the snapshot\: where every pending gang would land' \
'capacity:Count how many more copies of a gang fit, and where; what stops the next copy' \
'diff:Compare the plans of two snapshots\: which units changed and which changes caused it' \
'doctor:Find what is broken or leaking in the cluster\: orphans, skew, gang health, DRA (\`WASD###\`)' \
'tree:Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status' \
'lint:Check manifests against the 1.37 WAS validation and cross-object rules (\`WAS###\`)' \
'snapshot:Write the loaded objects and cluster facts to one file that \`--from\` reads back' \
'version:Print the version, commit and supported Kubernetes version' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-wasctl help commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__capacity_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__capacity_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help capacity commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__diff_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help diff commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__doctor_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__doctor_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help doctor commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__explain_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__explain_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help explain commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__help_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help help commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__lint_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__lint_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help lint commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__simulate_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__simulate_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help simulate commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__snapshot_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__snapshot_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help snapshot commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__tree_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__tree_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help tree commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__help__subcmd__version_commands] )) ||
_kubectl-wasctl__subcmd__help__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl help version commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__lint_commands] )) ||
_kubectl-wasctl__subcmd__lint_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl lint commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__simulate_commands] )) ||
_kubectl-wasctl__subcmd__simulate_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl simulate commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__snapshot_commands] )) ||
_kubectl-wasctl__subcmd__snapshot_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl snapshot commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__tree_commands] )) ||
_kubectl-wasctl__subcmd__tree_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl tree commands' commands "$@"
}
(( $+functions[_kubectl-wasctl__subcmd__version_commands] )) ||
_kubectl-wasctl__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-wasctl version commands' commands "$@"
}

if [ "$funcstack[1]" = "_kubectl-wasctl" ]; then
    _kubectl-wasctl "$@"
else
    compdef _kubectl-wasctl kubectl-wasctl
fi
