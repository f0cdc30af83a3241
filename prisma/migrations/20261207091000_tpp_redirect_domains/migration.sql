-- ob_tpps.redirect_domains: the DNS names of the TPP's certificate (its subjectAltName dNSName
-- entries, as a QWAC names the website it identifies). A TPP-Redirect-URI / TPP-Nok-Redirect-URI is
-- accepted only as an https URL on one of them (or a subdomain): the SCA page sends the customer's
-- browser there. Certificates registered before this column have none, so they can start SCAs
-- without redirect URIs only, until the TPP registers a certificate that names its domains.
ALTER TABLE "ob_tpps" ADD COLUMN "redirect_domains" TEXT[] NOT NULL DEFAULT '{}';
