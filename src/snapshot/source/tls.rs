//! The live client's TLS: kube's own stack, with one difference kubectl users rely on.
//!
//! A cluster made by hand often serves a self-signed certificate that is also a CA
//! (`basicConstraints: CA:TRUE`) and puts that same certificate in the kubeconfig's
//! `certificate-authority-data`. kubectl accepts it: Go's `x509.Certificate.Verify` trusts a
//! leaf that is itself in the root pool (`crypto/x509/verify.go`: `if opts.Roots.contains(c)`
//! the chain is `[c]`), after checking its validity period, and then the host name. rustls
//! (webpki) refuses any CA certificate as an end entity (`CaUsedAsEndEntity`).
//! [`CaAsServerCert`] accepts exactly that case: the server's certificate is byte for byte
//! one of the configured CAs, webpki found nothing wrong with it before its CA bit (its
//! validity period is checked first), and it is valid for the server's name. Everything else
//! is webpki's answer.

use std::sync::Arc;

use kube::client::ConfigExt as _;
use kube::{Client, Config};
use rustls::DigitallySignedStruct;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

/// True when kube's default TLS would be used with CA certificates from the kubeconfig, which
/// is when [`client`] builds the client instead (an `https` server, a configured CA, and no
/// `insecure-skip-tls-verify`; the in-cluster CA file keeps kube's own reloading verifier).
pub(crate) fn applies(config: &Config) -> bool {
    config.cluster_url.scheme() == Some(&http::uri::Scheme::HTTPS)
        && config.root_cert.as_ref().is_some_and(|c| !c.is_empty())
        && !config.accept_invalid_certs
        && config.root_cert_file.is_none()
        && config.proxy_url.is_none()
}

/// A client built like kube's (`ClientBuilder::try_from(Config)`: its TLS config, base URI,
/// credentials and headers layers), with [`CaAsServerCert`] verifying the server. kube's
/// retry layer is left out (`Retry-After` is handled by the caller) and so is its tracing.
pub(crate) fn client(config: &Config) -> Result<Client, kube::Error> {
    let cas: Vec<CertificateDer<'static>> = config
        .root_cert
        .iter()
        .flatten()
        .map(|der| CertificateDer::from(der.clone()))
        .collect();
    let mut roots = rustls::RootCertStore::empty();
    for ca in &cas {
        roots
            .add(ca.clone())
            .map_err(|e| kube::Error::Service(format!("the kubeconfig's CA: {e}").into()))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .map_err(|e| kube::Error::Service(format!("the kubeconfig's CA: {e}").into()))?;
    let mut tls = config.rustls_client_config()?;
    tls.dangerous()
        .set_certificate_verifier(Arc::new(CaAsServerCert { webpki, cas }));

    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(config.connect_timeout);
    let mut https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    if let Some(name) = &config.tls_server_name {
        let name = ServerName::try_from(name.clone()).map_err(|_| {
            kube::Error::Service("the kubeconfig's `tls-server-name` is not a host name".into())
        })?;
        https = https.with_server_name_resolver(hyper_rustls::FixedServerNameResolver::new(name));
    }
    let connector = https.enable_http1().wrap_connector(http);
    let hyper: hyper_util::client::legacy::Client<_, kube::client::Body> =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build(connector);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(|e: hyper_util::client::legacy::Error| -> BoxError { Box::new(e) })
        .service(hyper);
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// kube's error type for its service stack.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// webpki's verifier, except that a server certificate equal to a configured CA is accepted
/// as Go accepts it (see the module's documentation).
#[derive(Debug)]
struct CaAsServerCert {
    webpki: Arc<WebPkiServerVerifier>,
    /// The kubeconfig's CA certificates, as DER.
    cas: Vec<CertificateDer<'static>>,
}

/// True when `e` is webpki's `CaUsedAsEndEntity`.
fn is_ca_used_as_end_entity(e: &rustls::Error) -> bool {
    match e {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => other
            .0
            .downcast_ref::<webpki::Error>()
            .is_some_and(|w| *w == webpki::Error::CaUsedAsEndEntity),
        _ => false,
    }
}

impl ServerCertVerifier for CaAsServerCert {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            // webpki checks an end entity's validity period before its basic constraints:
            // `CaUsedAsEndEntity` means the certificate parsed and is within its period.
            Err(e)
                if is_ca_used_as_end_entity(&e)
                    && self.cas.iter().any(|ca| ca.as_ref() == end_entity.as_ref()) =>
            {
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
                rustls::client::verify_server_name(&parsed, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}
