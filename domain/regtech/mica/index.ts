/**
 * MiCA checks (Regulation (EU) 2023/1114): what class a crypto-asset falls in, whether its issuer's
 * authorisation fits that class, and whether the white paper's SHA-256 is the one registered for
 * that issuer. The register (mica_issuers, mica_whitepapers) is maintained by operators. A failing
 * check is a result with coded issues (Errors rule 3), stored per environment.
 */
import type { Principal } from '../../auth/principal';
import { getAsset } from '../../assets';
import { getPool } from '../../db/pool';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';

export type MicaClass = 'e_money_token' | 'asset_referenced_token' | 'other_crypto_asset';

/** Names a caller may use for each class, besides an asset code. */
const CLASS_ALIASES: Record<string, MicaClass> = {
  emt: 'e_money_token', e_money_token: 'e_money_token', 'e-money token': 'e_money_token',
  art: 'asset_referenced_token', asset_referenced_token: 'asset_referenced_token', 'asset-referenced token': 'asset_referenced_token',
  other: 'other_crypto_asset', other_crypto_asset: 'other_crypto_asset', crypto_asset: 'other_crypto_asset', utility_token: 'other_crypto_asset',
};

/** Stablecoins the platform lists that reference one official currency (MiCA Art. 3(1)(7)). */
const SINGLE_CURRENCY_TOKENS = new Set(['USDC', 'USDT']);

/**
 * The class: an explicit class name, or the class of a platform asset — a basket references several
 * currencies and gold (ART, Art. 3(1)(6)); a token that references one official currency is an EMT;
 * any other crypto-asset is "other".
 */
export async function classify(assetType: string): Promise<{ classification: MicaClass; basis: string }> {
  const key = assetType.trim().toLowerCase();
  if (CLASS_ALIASES[key]) return { classification: CLASS_ALIASES[key], basis: `asset_type ${assetType}` };
  const asset = await getAsset(assetType);
  if (!asset) throw new DomainError('UNKNOWN_ASSET_TYPE', `asset_type must be emt, art, other or a listed asset code; got ${assetType.slice(0, 20)}`, '/asset_type');
  if (asset.type === 'basket') return { classification: 'asset_referenced_token', basis: `${asset.code} references a basket of currencies and a commodity` };
  if (SINGLE_CURRENCY_TOKENS.has(asset.code)) return { classification: 'e_money_token', basis: `${asset.code} references one official currency` };
  if (asset.type === 'fiat') throw new DomainError('NOT_A_CRYPTO_ASSET', `${asset.code} is an official currency, not a crypto-asset`, '/asset_type');
  return { classification: 'other_crypto_asset', basis: `${asset.code} references no value` };
}

const FITS: Record<MicaClass, string[]> = {
  e_money_token: ['credit_institution', 'e_money_institution'],
  asset_referenced_token: ['art_issuer', 'credit_institution'],
  other_crypto_asset: ['credit_institution', 'e_money_institution', 'art_issuer', 'casp', 'none'],
};

export interface MicaCheckRequest {
  asset_type: string;
  issuer_id: string;
  whitepaper_hash: string;
}

export interface MicaCheck {
  id: string;
  assetType: string;
  classification: MicaClass;
  classificationBasis: string;
  issuer: { id: string; name: string; authorisation: string; homeMemberState: string | null };
  whitepaper: { id: string; assetCode: string; version: string; status: string; publishedAt: string } | null;
  isCompliant: boolean;
  complianceIssues: Array<{ code: string; description: string }>;
  recommendations: string[];
  checkedAt: Date;
}

export async function runMicaCheck(p: Principal, body: MicaCheckRequest): Promise<MicaCheck> {
  const hash = body.whitepaper_hash.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new DomainError('INVALID_HASH', 'whitepaper_hash must be a SHA-256 in hex (64 characters)', '/whitepaper_hash');
  const { classification, basis } = await classify(body.asset_type);
  const pool = getPool();
  const { rows: issuers } = await pool.query<{ id: string; name: string; authorisation: string; home_member_state: string | null }>('SELECT * FROM mica_issuers WHERE id = $1', [body.issuer_id]);
  const issuer = issuers[0];
  if (!issuer) throw new DomainError('ISSUER_NOT_FOUND', `No issuer ${body.issuer_id.slice(0, 40)} in the MiCA register`, '/issuer_id');
  const { rows: papers } = await pool.query<{ id: string; asset_code: string; issuer_id: string; version: string; status: string; published_at: Date }>(
    'SELECT * FROM mica_whitepapers WHERE sha256 = $1',
    [hash],
  );
  const paper = papers[0];
  const issues: MicaCheck['complianceIssues'] = [];
  const recommendations: string[] = [];
  if (!FITS[classification].includes(issuer.authorisation)) {
    const article = classification === 'e_money_token' ? 'Art. 48(1): only credit institutions and electronic money institutions' : 'Art. 16(1): only authorised issuers and credit institutions';
    issues.push({ code: classification === 'e_money_token' ? 'ISSUER_NOT_AUTHORISED_FOR_EMT' : 'ISSUER_NOT_AUTHORISED_FOR_ART', description: `${issuer.name} (${issuer.authorisation}) may not offer this ${classification.replace(/_/g, ' ')}: ${article} may.` });
    recommendations.push('Do not offer or admit the token to trading in the EU until its issuer holds the authorisation its class requires.');
  }
  if (!paper) {
    issues.push({ code: 'WHITEPAPER_NOT_REGISTERED', description: 'No white paper with this SHA-256 is registered.' });
    recommendations.push('Obtain the white paper notified to the competent authority and check its exact bytes.');
  } else if (paper.issuer_id !== issuer.id) {
    issues.push({ code: 'WHITEPAPER_ISSUER_MISMATCH', description: `This white paper is registered for another issuer (${paper.issuer_id}).` });
  } else if (paper.status !== 'registered') {
    issues.push({ code: 'WHITEPAPER_WITHDRAWN', description: `White paper version ${paper.version} was withdrawn; a later version is in force.` });
    recommendations.push('Check against the white paper version currently in force.');
  }
  const check: MicaCheck = {
    id: newId('mica'),
    assetType: body.asset_type,
    classification,
    classificationBasis: basis,
    issuer: { id: issuer.id, name: issuer.name, authorisation: issuer.authorisation, homeMemberState: issuer.home_member_state },
    whitepaper: paper ? { id: paper.id, assetCode: paper.asset_code, version: paper.version, status: paper.status, publishedAt: paper.published_at.toISOString().slice(0, 10) } : null,
    isCompliant: issues.length === 0,
    complianceIssues: issues,
    recommendations,
    checkedAt: new Date(),
  };
  await pool.query(
    `INSERT INTO mica_checks (id, environment, user_id, asset_type, classification, issuer_id, whitepaper_hash, whitepaper_id, is_compliant, compliance_issues, recommendations, checked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [check.id, p.environment, p.userId, body.asset_type, classification, issuer.id, hash, paper?.id ?? null, check.isCompliant, JSON.stringify(issues), JSON.stringify(recommendations), check.checkedAt],
  );
  return check;
}

export * from './register';

/** The caller's MiCA check in the caller's environment, else CHECK_NOT_FOUND. */
export async function getOwnMicaCheck(p: Principal, id: string): Promise<MicaCheck> {
  const { rows } = await getPool().query(
    `SELECT c.*, i.name AS issuer_name, i.authorisation, i.home_member_state, w.asset_code, w.version, w.status AS wp_status, w.published_at
       FROM mica_checks c JOIN mica_issuers i ON i.id = c.issuer_id LEFT JOIN mica_whitepapers w ON w.id = c.whitepaper_id
      WHERE c.id = $1 AND c.user_id = $2 AND c.environment = $3`,
    [id, p.userId, p.environment],
  );
  const r = rows[0];
  if (!r) throw new DomainError('CHECK_NOT_FOUND', 'MiCA check not found');
  return {
    id: r.id,
    assetType: r.asset_type,
    classification: r.classification,
    classificationBasis: `asset_type ${r.asset_type}`,
    issuer: { id: r.issuer_id, name: r.issuer_name, authorisation: r.authorisation, homeMemberState: r.home_member_state },
    whitepaper: r.whitepaper_id ? { id: r.whitepaper_id, assetCode: r.asset_code, version: r.version, status: r.wp_status, publishedAt: r.published_at.toISOString().slice(0, 10) } : null,
    isCompliant: r.is_compliant,
    complianceIssues: r.compliance_issues,
    recommendations: r.recommendations,
    checkedAt: r.checked_at,
  };
}
