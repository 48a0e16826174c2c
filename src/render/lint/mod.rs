//! The lint report's views, one writer per format (style §4 habit 5): [`text`] (ruff-like),
//! [`json`] (`kind: LintReport`), [`sarif`] (2.1.0), [`junit`], [`github`] (workflow
//! annotations). Each takes a writer; none prints. Tests render one shared fixture report.

pub(crate) mod github;
pub(crate) mod json;
pub(crate) mod junit;
pub(crate) mod sarif;
pub(crate) mod text;

/// An output format of `lint -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// `file:line:col RULE message`, a source excerpt and a fix hint.
    Text,
    /// `apiVersion: wasctl.dev/v1alpha1`, `kind: LintReport`.
    Json,
    /// SARIF 2.1.0 for GitHub code scanning.
    Sarif,
    /// JUnit XML, one testcase per object.
    Junit,
    /// GitHub Actions workflow annotations.
    Github,
}

#[cfg(test)]
pub(crate) mod fixture {
    //! The one shared report every writer's snapshot test renders.

    use crate::lint::{Input, Options, lint};

    /// A small manifest set with one finding of each severity and a clean object.
    pub(crate) const MANIFESTS: &str = "apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: train
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 0
---
apiVersion: v1
kind: Pod
metadata:
  name: train-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: trian
  containers:
  - name: main
    image: registry.example.com/train:1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ml
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-a1
";

    /// The linted fixture.
    pub(crate) fn report() -> crate::lint::LintReport {
        let inputs = [Input {
            name: "manifests/train.yaml".to_owned(),
            text: Ok(MANIFESTS.to_owned()),
        }];
        let options = Options {
            default_namespace: "default".to_owned(),
            ..Options::default()
        };
        lint(&inputs, &options, None)
    }
}
