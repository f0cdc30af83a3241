-- DeFi: DEX pools with their reserves, swap quotes and swaps, flash-loan lending pools and
-- loans, cross-chain swaps (bridge + swap). docs/defi.md explains the model and the math.

-- ---------------------------------------------------------------------------------------------
-- DEX pools. Reserves are balances in base units (token amount x 10^decimals on that chain), as
-- the pool contract holds them; swaps update them under a row lock. Sandbox and production each
-- have their own copy (production would refresh them from the chain; not built). The seed
-- snapshot prices ETH about 3400 USD and BTC about 95000 USD, like the sandbox rates, with small
-- differences between venues so routing has a choice.
--   kind constant_product: Uniswap V2 math (Uniswap V3 pools approximated over in-range liquidity)
--   kind stable_swap:      Curve StableSwap with amplification A
--   kind weighted:         Balancer V2 weighted math with normalised weights
-- fee_ppm is the swap fee in parts per million (Uniswap V3 units: 500 = 0.05 %).
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_pools" (
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "id"            TEXT NOT NULL,
  "chain"         TEXT NOT NULL,
  "dex"           TEXT NOT NULL,
  "kind"          TEXT NOT NULL CHECK ("kind" IN ('constant_product', 'stable_swap', 'weighted')),
  "address"       TEXT NOT NULL,
  -- Ledger asset codes in the pool's coin order.
  "tokens"        TEXT[] NOT NULL,
  "decimals"      INTEGER[] NOT NULL,
  "reserves"      NUMERIC(78, 0)[] NOT NULL,
  "weights"       NUMERIC(20, 18)[] NOT NULL DEFAULT '{}',
  "fee_ppm"       INTEGER NOT NULL CHECK ("fee_ppm" >= 0 AND "fee_ppm" < 1000000),
  "amplification" INTEGER,
  "swap_count"    BIGINT NOT NULL DEFAULT 0,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "id"),
  CHECK (cardinality("tokens") >= 2 AND cardinality("tokens") = cardinality("decimals") AND cardinality("tokens") = cardinality("reserves")),
  CHECK ("kind" <> 'weighted' OR cardinality("weights") = cardinality("tokens")),
  CHECK ("kind" <> 'stable_swap' OR "amplification" > 0)
);
CREATE INDEX "defi_pools_environment_chain_idx" ON "defi_pools" ("environment", "chain");

INSERT INTO "defi_pools" ("environment", "id", "chain", "dex", "kind", "address", "tokens", "decimals", "reserves", "weights", "fee_ppm", "amplification")
SELECT e.env, p.id, p.chain, p.dex, p.kind, p.address, p.tokens::text[], p.decimals::integer[], p.reserves::numeric[], p.weights::numeric[], p.fee_ppm, p.amp
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES
  ('ethereum-uniswap_v3-weth-usdc-500', 'ethereum', 'uniswap_v3', 'constant_product', '0x1c1053c928a80c31fc0d595be537d89c8e128fd0', '{WETH,USDC}', '{18,6}', '{12000000000000000000000,40800000000000}', '{}', 500, NULL),
  ('ethereum-uniswap_v3-weth-usdc-3000', 'ethereum', 'uniswap_v3', 'constant_product', '0x0c16cb318f28cd86efb888137214342a3fc5962f', '{WETH,USDC}', '{18,6}', '{4000000000000000000000,13620000000000}', '{}', 3000, NULL),
  ('ethereum-uniswap_v3-weth-usdt-3000', 'ethereum', 'uniswap_v3', 'constant_product', '0xe1346bc6192f2a0f268993153f84d8a91af99b34', '{WETH,USDT}', '{18,6}', '{3000000000000000000000,10200000000000}', '{}', 3000, NULL),
  ('ethereum-uniswap_v3-weth-dai-3000', 'ethereum', 'uniswap_v3', 'constant_product', '0x03edd31bda881ea0f366db7cb21e9d78d427b1ca', '{WETH,DAI}', '{18,18}', '{2000000000000000000000,6796000000000000000000000}', '{}', 3000, NULL),
  ('ethereum-uniswap_v3-wbtc-weth-3000', 'ethereum', 'uniswap_v3', 'constant_product', '0x535a28a66582fc76557d6af6ccdcd789d4138a41', '{WBTC,WETH}', '{8,18}', '{30000000000,8382352941176470588235}', '{}', 3000, NULL),
  ('ethereum-uniswap_v3-wbtc-usdc-10000', 'ethereum', 'uniswap_v3', 'constant_product', '0xe7e4cbf974f81a979b708517bc6b86bced5102a6', '{WBTC,USDC}', '{8,6}', '{5000000000,4760000000000}', '{}', 10000, NULL),
  ('ethereum-sushiswap-weth-usdc-3000', 'ethereum', 'sushiswap', 'constant_product', '0xf2b6faab59e99e4124f3558f75462811f71a11b4', '{WETH,USDC}', '{18,6}', '{2500000000000000000000,8487500000000}', '{}', 3000, NULL),
  ('ethereum-sushiswap-weth-usdt-3000', 'ethereum', 'sushiswap', 'constant_product', '0xc41cab03ea9be3c9ab4d092fd102b6b53494479f', '{WETH,USDT}', '{18,6}', '{1500000000000000000000,5103000000000}', '{}', 3000, NULL),
  ('ethereum-sushiswap-weth-dai-3000', 'ethereum', 'sushiswap', 'constant_product', '0x1fde9372c085b92b558e185ad4428197328ef404', '{WETH,DAI}', '{18,18}', '{1000000000000000000000,3400000000000000000000000}', '{}', 3000, NULL),
  ('ethereum-sushiswap-wbtc-weth-3000', 'ethereum', 'sushiswap', 'constant_product', '0x0b87e8b82a01960dacb1fcdd6b05ddd841f84cf4', '{WBTC,WETH}', '{8,18}', '{10000000000,2790000000000000000000}', '{}', 3000, NULL),
  ('ethereum-curve-dai-usdc-usdt-100', 'ethereum', 'curve', 'stable_swap', '0xb05f378129eb63896e773b6284a26165119fc755', '{DAI,USDC,USDT}', '{18,6,6}', '{60000000000000000000000000,70000000000000,65000000000000}', '{}', 100, 2000),
  ('ethereum-balancer-weth-usdc-2500', 'ethereum', 'balancer', 'weighted', '0x75590b4075fff1327f5a394636455e2d1de1f7ab', '{WETH,USDC}', '{18,6}', '{8000000000000000000000,6800000000000}', '{0.8,0.2}', 2500, NULL),
  ('arbitrum-uniswap_v3-weth-usdc-500', 'arbitrum', 'uniswap_v3', 'constant_product', '0x229b7afc9a09186460febf9b6ce18e512cea5c64', '{WETH,USDC}', '{18,6}', '{3600000000000000000000,12240000000000}', '{}', 500, NULL),
  ('arbitrum-uniswap_v3-weth-usdc-3000', 'arbitrum', 'uniswap_v3', 'constant_product', '0x58d47093eee6563b6be667ceb033ee2d5d2ba4d0', '{WETH,USDC}', '{18,6}', '{1200000000000000000000,4086000000000}', '{}', 3000, NULL),
  ('arbitrum-uniswap_v3-weth-usdt-3000', 'arbitrum', 'uniswap_v3', 'constant_product', '0x7e7e9aff256609d0e53984d3224b50b4a6a3af6b', '{WETH,USDT}', '{18,6}', '{900000000000000000000,3060000000000}', '{}', 3000, NULL),
  ('arbitrum-uniswap_v3-weth-dai-3000', 'arbitrum', 'uniswap_v3', 'constant_product', '0xbf37555d28a261bee6c9ca609a611b4e525c4be9', '{WETH,DAI}', '{18,18}', '{600000000000000000000,2038800000000000000000000}', '{}', 3000, NULL),
  ('arbitrum-uniswap_v3-wbtc-weth-3000', 'arbitrum', 'uniswap_v3', 'constant_product', '0xc3008d1b94b2e70ee81551b335bb2b7f85c9ae44', '{WBTC,WETH}', '{8,18}', '{9000000000,2514705882352941176470}', '{}', 3000, NULL),
  ('arbitrum-uniswap_v3-wbtc-usdc-10000', 'arbitrum', 'uniswap_v3', 'constant_product', '0x53e50fafa7ab4d05a73c666dd215a782dd5bd2df', '{WBTC,USDC}', '{8,6}', '{1500000000,1428000000000}', '{}', 10000, NULL),
  ('arbitrum-sushiswap-weth-usdc-3000', 'arbitrum', 'sushiswap', 'constant_product', '0xe9955b0ff01cd957cca801b8078a6a5d372d09f2', '{WETH,USDC}', '{18,6}', '{750000000000000000000,2546250000000}', '{}', 3000, NULL),
  ('arbitrum-sushiswap-weth-usdt-3000', 'arbitrum', 'sushiswap', 'constant_product', '0xd2534a81599d4e62c5f5ca09b7eec3a19f4cea7d', '{WETH,USDT}', '{18,6}', '{450000000000000000000,1530900000000}', '{}', 3000, NULL),
  ('arbitrum-sushiswap-weth-dai-3000', 'arbitrum', 'sushiswap', 'constant_product', '0xc9c657c6ed511ccf6fa935351ffe6a0f66791012', '{WETH,DAI}', '{18,18}', '{300000000000000000000,1020000000000000000000000}', '{}', 3000, NULL),
  ('arbitrum-sushiswap-wbtc-weth-3000', 'arbitrum', 'sushiswap', 'constant_product', '0xce5c66e89e796f50aa5d0cd646e82d757acd4fa4', '{WBTC,WETH}', '{8,18}', '{3000000000,837000000000000000000}', '{}', 3000, NULL),
  ('arbitrum-curve-dai-usdc-usdt-100', 'arbitrum', 'curve', 'stable_swap', '0xef7f689f571e2bd17ea4bffc3e5b6ea4d44334ec', '{DAI,USDC,USDT}', '{18,6,6}', '{18000000000000000000000000,21000000000000,19500000000000}', '{}', 100, 2000),
  ('arbitrum-balancer-weth-usdc-2500', 'arbitrum', 'balancer', 'weighted', '0x9e8eeaddc113748bbbf7de01eb9159536508b2af', '{WETH,USDC}', '{18,6}', '{2400000000000000000000,2040000000000}', '{0.8,0.2}', 2500, NULL),
  ('optimism-uniswap_v3-weth-usdc-500', 'optimism', 'uniswap_v3', 'constant_product', '0xca45bf6d01952e0ca0977638075f4544998e2061', '{WETH,USDC}', '{18,6}', '{1800000000000000000000,6120000000000}', '{}', 500, NULL),
  ('optimism-uniswap_v3-weth-usdc-3000', 'optimism', 'uniswap_v3', 'constant_product', '0x0ded59fb014859d653db593c63ccdfae5e1db2bd', '{WETH,USDC}', '{18,6}', '{600000000000000000000,2043000000000}', '{}', 3000, NULL),
  ('optimism-uniswap_v3-weth-usdt-3000', 'optimism', 'uniswap_v3', 'constant_product', '0xb74ec22b006b4407d461a587dc171ebf47326fd7', '{WETH,USDT}', '{18,6}', '{450000000000000000000,1530000000000}', '{}', 3000, NULL),
  ('optimism-uniswap_v3-weth-dai-3000', 'optimism', 'uniswap_v3', 'constant_product', '0x5e750f835d9b5d79b4b06d60fd16d8d06730fda9', '{WETH,DAI}', '{18,18}', '{300000000000000000000,1019400000000000000000000}', '{}', 3000, NULL),
  ('optimism-uniswap_v3-wbtc-weth-3000', 'optimism', 'uniswap_v3', 'constant_product', '0x38eb7624365df90924d3b115f1ef4c7a64806cf6', '{WBTC,WETH}', '{8,18}', '{4500000000,1257352941176470588235}', '{}', 3000, NULL),
  ('optimism-uniswap_v3-wbtc-usdc-10000', 'optimism', 'uniswap_v3', 'constant_product', '0xb36c6c0f9cacdf7c3f488d5a28584d07d8f6eee3', '{WBTC,USDC}', '{8,6}', '{750000000,714000000000}', '{}', 10000, NULL),
  ('optimism-sushiswap-weth-usdc-3000', 'optimism', 'sushiswap', 'constant_product', '0xbfe808992369a8edcdf7a352a068abbe8fbd773f', '{WETH,USDC}', '{18,6}', '{375000000000000000000,1273125000000}', '{}', 3000, NULL),
  ('optimism-sushiswap-weth-usdt-3000', 'optimism', 'sushiswap', 'constant_product', '0xf4eb00c08fe691e4a1d4e06c0a588b2df0a0d4ff', '{WETH,USDT}', '{18,6}', '{225000000000000000000,765450000000}', '{}', 3000, NULL),
  ('optimism-sushiswap-weth-dai-3000', 'optimism', 'sushiswap', 'constant_product', '0xa97b11e76d4482dbd1112c9a0fb0b2b85de71330', '{WETH,DAI}', '{18,18}', '{150000000000000000000,510000000000000000000000}', '{}', 3000, NULL),
  ('optimism-sushiswap-wbtc-weth-3000', 'optimism', 'sushiswap', 'constant_product', '0x33345395d769dcaed4640ceb535ec2f4796e8792', '{WBTC,WETH}', '{8,18}', '{1500000000,418500000000000000000}', '{}', 3000, NULL),
  ('optimism-curve-dai-usdc-usdt-100', 'optimism', 'curve', 'stable_swap', '0x32cca810599231a575838ea5524a4d1fb8f97755', '{DAI,USDC,USDT}', '{18,6,6}', '{9000000000000000000000000,10500000000000,9750000000000}', '{}', 100, 2000),
  ('base-uniswap_v3-weth-usdc-500', 'base', 'uniswap_v3', 'constant_product', '0x7997458bc926a344067d3ab5b3ce29e5b24c4838', '{WETH,USDC}', '{18,6}', '{3000000000000000000000,10200000000000}', '{}', 500, NULL),
  ('base-uniswap_v3-weth-usdc-3000', 'base', 'uniswap_v3', 'constant_product', '0x27a2444fad52cbb5707305e367c66b4faa7945c7', '{WETH,USDC}', '{18,6}', '{1000000000000000000000,3405000000000}', '{}', 3000, NULL),
  ('base-uniswap_v3-weth-usdt-3000', 'base', 'uniswap_v3', 'constant_product', '0x22cbd42baea66d84c57c3ed33f969ade77ac366c', '{WETH,USDT}', '{18,6}', '{750000000000000000000,2550000000000}', '{}', 3000, NULL),
  ('base-uniswap_v3-weth-dai-3000', 'base', 'uniswap_v3', 'constant_product', '0xfcc8f7ce60c8e8df25c95e986b4a770bd77e8552', '{WETH,DAI}', '{18,18}', '{500000000000000000000,1699000000000000000000000}', '{}', 3000, NULL),
  ('base-sushiswap-weth-usdc-3000', 'base', 'sushiswap', 'constant_product', '0x8b34161780d563f6d52cf954cb1ad57d4cf8b6ab', '{WETH,USDC}', '{18,6}', '{625000000000000000000,2121875000000}', '{}', 3000, NULL),
  ('base-sushiswap-weth-usdt-3000', 'base', 'sushiswap', 'constant_product', '0x63f5f0c128f92dbcab187c0913d060fbf9f34ab9', '{WETH,USDT}', '{18,6}', '{375000000000000000000,1275750000000}', '{}', 3000, NULL),
  ('base-sushiswap-weth-dai-3000', 'base', 'sushiswap', 'constant_product', '0x865f3fadb05079fb36b18612cc48dc0895df18ac', '{WETH,DAI}', '{18,18}', '{250000000000000000000,850000000000000000000000}', '{}', 3000, NULL),
  ('base-curve-dai-usdc-usdt-100', 'base', 'curve', 'stable_swap', '0xfdddbf5b1811b9e8b55a2c910ee26cc40f8ee980', '{DAI,USDC,USDT}', '{18,6,6}', '{15000000000000000000000000,17500000000000,16250000000000}', '{}', 100, 2000),
  ('polygon-uniswap_v3-weth-usdc-500', 'polygon', 'uniswap_v3', 'constant_product', '0x399823c5d5a3f4a67d9a98236fba0a091a2ccbe0', '{WETH,USDC}', '{18,6}', '{1200000000000000000000,4080000000000}', '{}', 500, NULL),
  ('polygon-uniswap_v3-weth-usdc-3000', 'polygon', 'uniswap_v3', 'constant_product', '0x1369f6564ffab31f0ac9d7d35975855b7e1ee598', '{WETH,USDC}', '{18,6}', '{400000000000000000000,1362000000000}', '{}', 3000, NULL),
  ('polygon-uniswap_v3-weth-usdt-3000', 'polygon', 'uniswap_v3', 'constant_product', '0x41a6a9fb57653d47f756f5905dbcf8d361c3b157', '{WETH,USDT}', '{18,6}', '{300000000000000000000,1020000000000}', '{}', 3000, NULL),
  ('polygon-uniswap_v3-weth-dai-3000', 'polygon', 'uniswap_v3', 'constant_product', '0xd211739a61ec21a07f0aa9fbe3ff5a26e3baf534', '{WETH,DAI}', '{18,18}', '{200000000000000000000,679600000000000000000000}', '{}', 3000, NULL),
  ('polygon-uniswap_v3-wbtc-weth-3000', 'polygon', 'uniswap_v3', 'constant_product', '0xde5d2dacec569cb15fbb8a68c3d64d6ccd0ddb4b', '{WBTC,WETH}', '{8,18}', '{3000000000,838235294117647058823}', '{}', 3000, NULL),
  ('polygon-uniswap_v3-wbtc-usdc-10000', 'polygon', 'uniswap_v3', 'constant_product', '0x0c51d23e57786a36772f1d05dfd8da4f70aea3fc', '{WBTC,USDC}', '{8,6}', '{500000000,476000000000}', '{}', 10000, NULL),
  ('polygon-sushiswap-weth-usdc-3000', 'polygon', 'sushiswap', 'constant_product', '0xd9ae869a5412bdf537cc3040613be665e0939011', '{WETH,USDC}', '{18,6}', '{250000000000000000000,848750000000}', '{}', 3000, NULL),
  ('polygon-sushiswap-weth-usdt-3000', 'polygon', 'sushiswap', 'constant_product', '0x78fa10fa8227380c693d8413507546988f52b0a0', '{WETH,USDT}', '{18,6}', '{150000000000000000000,510300000000}', '{}', 3000, NULL),
  ('polygon-sushiswap-weth-dai-3000', 'polygon', 'sushiswap', 'constant_product', '0x85077f9fd582eaae52eac04bc8acc8f5640c22ef', '{WETH,DAI}', '{18,18}', '{100000000000000000000,340000000000000000000000}', '{}', 3000, NULL),
  ('polygon-sushiswap-wbtc-weth-3000', 'polygon', 'sushiswap', 'constant_product', '0x136aaa257f874f26865b8328d94e087072e12e74', '{WBTC,WETH}', '{8,18}', '{1000000000,279000000000000000000}', '{}', 3000, NULL),
  ('polygon-curve-dai-usdc-usdt-100', 'polygon', 'curve', 'stable_swap', '0x4546859b0798c8f4f62c474e310e905700167df5', '{DAI,USDC,USDT}', '{18,6,6}', '{6000000000000000000000000,7000000000000,6500000000000}', '{}', 100, 2000),
  ('polygon-balancer-weth-usdc-2500', 'polygon', 'balancer', 'weighted', '0xac90b2c65292168a04f7f44d20219d524ee26a4a', '{WETH,USDC}', '{18,6}', '{800000000000000000000,680000000000}', '{0.8,0.2}', 2500, NULL),
  ('avalanche-uniswap_v3-weth-usdc-500', 'avalanche', 'uniswap_v3', 'constant_product', '0x60cb5583866dfc2548b750551f667628a33d2b2a', '{WETH,USDC}', '{18,6}', '{600000000000000000000,2040000000000}', '{}', 500, NULL),
  ('avalanche-uniswap_v3-weth-usdc-3000', 'avalanche', 'uniswap_v3', 'constant_product', '0xac6003406333dfdc8533387293eb8d20126a1c77', '{WETH,USDC}', '{18,6}', '{200000000000000000000,681000000000}', '{}', 3000, NULL),
  ('avalanche-uniswap_v3-weth-usdt-3000', 'avalanche', 'uniswap_v3', 'constant_product', '0x3d8e3ef039b8e5429d5bd58f5a8646193034d09e', '{WETH,USDT}', '{18,6}', '{150000000000000000000,510000000000}', '{}', 3000, NULL),
  ('avalanche-uniswap_v3-weth-dai-3000', 'avalanche', 'uniswap_v3', 'constant_product', '0xdb363c6b918cff4f6c0f9e5dc15c0067d221ec74', '{WETH,DAI}', '{18,18}', '{100000000000000000000,339800000000000000000000}', '{}', 3000, NULL),
  ('avalanche-uniswap_v3-wbtc-weth-3000', 'avalanche', 'uniswap_v3', 'constant_product', '0x7a22fd84ee1ccf1cb9759871c979fe9d7276d1ad', '{WBTC,WETH}', '{8,18}', '{1500000000,419117647058823529411}', '{}', 3000, NULL),
  ('avalanche-uniswap_v3-wbtc-usdc-10000', 'avalanche', 'uniswap_v3', 'constant_product', '0x0a6615ac9e4a35a1ade2a7f0e9a641f358b76e38', '{WBTC,USDC}', '{8,6}', '{250000000,238000000000}', '{}', 10000, NULL),
  ('avalanche-sushiswap-weth-usdc-3000', 'avalanche', 'sushiswap', 'constant_product', '0x43f42c2c4f38361d8b1cc7409323fdaf4cf526f0', '{WETH,USDC}', '{18,6}', '{125000000000000000000,424375000000}', '{}', 3000, NULL),
  ('avalanche-sushiswap-weth-usdt-3000', 'avalanche', 'sushiswap', 'constant_product', '0x5886691cd65f3d0cdc3db324951540fa0e175a93', '{WETH,USDT}', '{18,6}', '{75000000000000000000,255150000000}', '{}', 3000, NULL),
  ('avalanche-sushiswap-weth-dai-3000', 'avalanche', 'sushiswap', 'constant_product', '0x7237ca18b98d0cc4212a6ae6424c1b9733589ae9', '{WETH,DAI}', '{18,18}', '{50000000000000000000,170000000000000000000000}', '{}', 3000, NULL),
  ('avalanche-sushiswap-wbtc-weth-3000', 'avalanche', 'sushiswap', 'constant_product', '0x1b21e4816d0c2d66ff3e06640b841134dcac6964', '{WBTC,WETH}', '{8,18}', '{500000000,139500000000000000000}', '{}', 3000, NULL),
  ('avalanche-curve-dai-usdc-usdt-100', 'avalanche', 'curve', 'stable_swap', '0x66a2f17180a3b9fa1b7dd188c3a7e914b2738b37', '{DAI,USDC,USDT}', '{18,6,6}', '{3000000000000000000000000,3500000000000,3250000000000}', '{}', 100, 2000),
  ('bsc-uniswap_v3-eth-usdc-500', 'bsc', 'uniswap_v3', 'constant_product', '0x3a01019f55517d5bb26c6240271db470c83e947f', '{ETH,USDC}', '{18,18}', '{1200000000000000000000,4080000000000000000000000}', '{}', 500, NULL),
  ('bsc-uniswap_v3-eth-usdc-3000', 'bsc', 'uniswap_v3', 'constant_product', '0x29b4e47d2eed76f0c30bd73a2a977aa453af17b4', '{ETH,USDC}', '{18,18}', '{400000000000000000000,1362000000000000000000000}', '{}', 3000, NULL),
  ('bsc-uniswap_v3-eth-usdt-3000', 'bsc', 'uniswap_v3', 'constant_product', '0x2951b06aa61da24206267200405cb74da9b6b344', '{ETH,USDT}', '{18,18}', '{300000000000000000000,1020000000000000000000000}', '{}', 3000, NULL),
  ('bsc-uniswap_v3-eth-dai-3000', 'bsc', 'uniswap_v3', 'constant_product', '0x750e4c105a1fb429ecf18a252cffc033ae3cbff6', '{ETH,DAI}', '{18,18}', '{200000000000000000000,679600000000000000000000}', '{}', 3000, NULL),
  ('bsc-sushiswap-eth-usdc-3000', 'bsc', 'sushiswap', 'constant_product', '0x1e6a160e826edf20eaaaaaed3f75fb0127888df8', '{ETH,USDC}', '{18,18}', '{250000000000000000000,848750000000000000000000}', '{}', 3000, NULL),
  ('bsc-sushiswap-eth-usdt-3000', 'bsc', 'sushiswap', 'constant_product', '0x886fe103b2e044cde89d8160ab4a0c4775a9cf3d', '{ETH,USDT}', '{18,18}', '{150000000000000000000,510300000000000000000000}', '{}', 3000, NULL),
  ('bsc-sushiswap-eth-dai-3000', 'bsc', 'sushiswap', 'constant_product', '0x98f9e0e7703ed151f359918912fe2d00f8028418', '{ETH,DAI}', '{18,18}', '{100000000000000000000,340000000000000000000000}', '{}', 3000, NULL),
  ('bsc-curve-dai-usdc-usdt-100', 'bsc', 'curve', 'stable_swap', '0x1b4fef4a3f3102c3461df254cc67ad9f2a5a1c5a', '{DAI,USDC,USDT}', '{18,18,18}', '{6000000000000000000000000,7000000000000000000000000,6500000000000000000000000}', '{}', 100, 2000),
  ('solana-raydium-weth-usdc-2500', 'solana', 'raydium', 'constant_product', 'FvgB4dSd2nvUENfLwkj6wW3Y2upe7uL76bXW3MVPGuij', '{WETH,USDC}', '{8,6}', '{60000000000,2040000000000}', '{}', 2500, NULL),
  ('solana-raydium-wbtc-usdc-2500', 'solana', 'raydium', 'constant_product', '69UZGz7hmaiGCp633LVJUbHBwyHu3ufUnJSrhLiJ8DeR', '{WBTC,USDC}', '{8,6}', '{1000000000,950000000000}', '{}', 2500, NULL),
  ('solana-orca-weth-usdc-3000', 'solana', 'orca', 'constant_product', 'DMT12Z1KEzZFQmv4pNM8o3zups35FFMwzkbosZ94nAtL', '{WETH,USDC}', '{8,6}', '{30000000000,1021200000000}', '{}', 3000, NULL),
  ('solana-saber-usdc-usdt-100', 'solana', 'saber', 'stable_swap', 'G1eXKd4J7sHrBre9vp5UoRR8zgb6g4DHBatXTj1rsf4D', '{USDC,USDT}', '{6,6}', '{5000000000000,4800000000000}', '{}', 100, 1000)
) p(id, chain, dex, kind, address, tokens, decimals, reserves, weights, fee_ppm, amp);

-- ---------------------------------------------------------------------------------------------
-- Flash-loan lending pools: what a lender can lend in one transaction, and its fee
-- (900 ppm = 0.09 %, Aave V2's flash-loan premium).
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_lending_pools" (
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "id"          TEXT NOT NULL,
  "chain"       TEXT NOT NULL,
  "protocol"    TEXT NOT NULL,
  "token"       TEXT NOT NULL,
  "decimals"    INTEGER NOT NULL,
  "liquidity"   NUMERIC(78, 0) NOT NULL CHECK ("liquidity" >= 0),
  "fee_ppm"     INTEGER NOT NULL CHECK ("fee_ppm" >= 0 AND "fee_ppm" < 1000000),
  "loan_count"  BIGINT NOT NULL DEFAULT 0,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "id")
);
CREATE UNIQUE INDEX "defi_lending_pools_environment_chain_protocol_token_key" ON "defi_lending_pools" ("environment", "chain", "protocol", "token");

INSERT INTO "defi_lending_pools" ("environment", "id", "chain", "protocol", "token", "decimals", "liquidity", "fee_ppm")
SELECT e.env, p.id, p.chain, p.protocol, p.token, p.decimals, p.liquidity, p.fee_ppm
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES
  ('ethereum-aave-weth', 'ethereum', 'aave', 'WETH', 18, 50000000000000000000000, 900),
  ('ethereum-aave-usdc', 'ethereum', 'aave', 'USDC', 6, 200000000000000, 900),
  ('ethereum-aave-usdt', 'ethereum', 'aave', 'USDT', 6, 150000000000000, 900),
  ('ethereum-aave-dai', 'ethereum', 'aave', 'DAI', 18, 100000000000000000000000000, 900),
  ('ethereum-aave-wbtc', 'ethereum', 'aave', 'WBTC', 8, 200000000000, 900),
  ('arbitrum-aave-weth', 'arbitrum', 'aave', 'WETH', 18, 15000000000000000000000, 900),
  ('arbitrum-aave-usdc', 'arbitrum', 'aave', 'USDC', 6, 60000000000000, 900),
  ('arbitrum-aave-usdt', 'arbitrum', 'aave', 'USDT', 6, 45000000000000, 900),
  ('arbitrum-aave-dai', 'arbitrum', 'aave', 'DAI', 18, 30000000000000000000000000, 900),
  ('arbitrum-aave-wbtc', 'arbitrum', 'aave', 'WBTC', 8, 60000000000, 900),
  ('optimism-aave-weth', 'optimism', 'aave', 'WETH', 18, 7500000000000000000000, 900),
  ('optimism-aave-usdc', 'optimism', 'aave', 'USDC', 6, 30000000000000, 900),
  ('optimism-aave-usdt', 'optimism', 'aave', 'USDT', 6, 22500000000000, 900),
  ('optimism-aave-dai', 'optimism', 'aave', 'DAI', 18, 15000000000000000000000000, 900),
  ('optimism-aave-wbtc', 'optimism', 'aave', 'WBTC', 8, 30000000000, 900),
  ('base-aave-weth', 'base', 'aave', 'WETH', 18, 12500000000000000000000, 900),
  ('base-aave-usdc', 'base', 'aave', 'USDC', 6, 50000000000000, 900),
  ('base-aave-usdt', 'base', 'aave', 'USDT', 6, 37500000000000, 900),
  ('base-aave-dai', 'base', 'aave', 'DAI', 18, 25000000000000000000000000, 900),
  ('polygon-aave-weth', 'polygon', 'aave', 'WETH', 18, 5000000000000000000000, 900),
  ('polygon-aave-usdc', 'polygon', 'aave', 'USDC', 6, 20000000000000, 900),
  ('polygon-aave-usdt', 'polygon', 'aave', 'USDT', 6, 15000000000000, 900),
  ('polygon-aave-dai', 'polygon', 'aave', 'DAI', 18, 10000000000000000000000000, 900),
  ('polygon-aave-wbtc', 'polygon', 'aave', 'WBTC', 8, 20000000000, 900),
  ('avalanche-aave-weth', 'avalanche', 'aave', 'WETH', 18, 2500000000000000000000, 900),
  ('avalanche-aave-usdc', 'avalanche', 'aave', 'USDC', 6, 10000000000000, 900),
  ('avalanche-aave-usdt', 'avalanche', 'aave', 'USDT', 6, 7500000000000, 900),
  ('avalanche-aave-dai', 'avalanche', 'aave', 'DAI', 18, 5000000000000000000000000, 900),
  ('avalanche-aave-wbtc', 'avalanche', 'aave', 'WBTC', 8, 10000000000, 900),
  ('bsc-aave-eth', 'bsc', 'aave', 'ETH', 18, 5000000000000000000000, 900),
  ('bsc-aave-usdc', 'bsc', 'aave', 'USDC', 18, 20000000000000000000000000, 900),
  ('bsc-aave-usdt', 'bsc', 'aave', 'USDT', 18, 15000000000000000000000000, 900),
  ('bsc-aave-dai', 'bsc', 'aave', 'DAI', 18, 10000000000000000000000000, 900)
) p(id, chain, protocol, token, decimals, liquidity, fee_ppm);

-- ---------------------------------------------------------------------------------------------
-- Swap quotes: the best route over the requested DEX sources, valid until expires_at, spent
-- once (used_at, swap_id) by their owner.
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_swap_quotes" (
  "id"                   TEXT PRIMARY KEY,
  "environment"          TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"              TEXT NOT NULL REFERENCES "users" ("id"),
  "chain"                TEXT NOT NULL,
  -- Token symbols on the chain, and the ledger assets they are booked as.
  "token_in"             TEXT NOT NULL,
  "token_out"            TEXT NOT NULL,
  "asset_in"             TEXT NOT NULL REFERENCES "assets" ("code"),
  "asset_out"            TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount_in"            NUMERIC(38, 18) NOT NULL CHECK ("amount_in" > 0),
  "estimated_output"     NUMERIC(38, 18) NOT NULL,
  "minimum_output"       NUMERIC(38, 18) NOT NULL,
  "slippage_bps"         INTEGER NOT NULL CHECK ("slippage_bps" >= 0 AND "slippage_bps" <= 5000),
  "price_impact_percent" NUMERIC(38, 18) NOT NULL,
  "gas_units"            BIGINT NOT NULL,
  "gas_price_gwei"       NUMERIC(38, 18) NOT NULL,
  "estimated_gas_usd"    NUMERIC(38, 18) NOT NULL,
  -- The network fee the customer pays, in token_out (the gas at the quote's gas price).
  "network_fee"          NUMERIC(38, 18) NOT NULL,
  "dex_sources"          TEXT[] NOT NULL,
  "route"                JSONB NOT NULL,
  "alternatives"         JSONB NOT NULL DEFAULT '[]',
  "expires_at"           TIMESTAMPTZ(3) NOT NULL,
  "used_at"              TIMESTAMPTZ(3),
  "swap_id"              TEXT,
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "defi_swap_quotes_user_id_environment_created_at_idx" ON "defi_swap_quotes" ("user_id", "environment", "created_at" DESC);

-- ---------------------------------------------------------------------------------------------
-- Swaps: one quote executed by the swap workflow (workflows/swap.ts).
--   pending -> submitted -> included -> completed
--   pending | submitted | included -> failed (quote expired, deadline passed, gas above the cap,
--     insufficient funds, reverted, dropped, slippage exceeded: the reservation is voided, pools
--     unchanged)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_swaps" (
  "id"                    TEXT PRIMARY KEY,
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"               TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"            TEXT NOT NULL REFERENCES "accounts" ("id"),
  "quote_id"              TEXT NOT NULL REFERENCES "defi_swap_quotes" ("id"),
  "chain"                 TEXT NOT NULL,
  "token_in"              TEXT NOT NULL,
  "token_out"             TEXT NOT NULL,
  "asset_in"              TEXT NOT NULL REFERENCES "assets" ("code"),
  "asset_out"             TEXT NOT NULL REFERENCES "assets" ("code"),
  "dex"                   TEXT NOT NULL,
  "route"                 JSONB NOT NULL,
  "amount_in"             NUMERIC(38, 18) NOT NULL CHECK ("amount_in" > 0),
  "expected_output"       NUMERIC(38, 18) NOT NULL,
  "minimum_output"        NUMERIC(38, 18) NOT NULL,
  "actual_output"         NUMERIC(38, 18),
  "network_fee"           NUMERIC(38, 18),
  "wallet_address"        TEXT NOT NULL,
  "router_address"        TEXT NOT NULL,
  -- Sandbox only: a failure the sandbox chain should produce ('revert' or 'drop').
  "sandbox_outcome"       TEXT,
  "max_gas_price_gwei"    NUMERIC(38, 18),
  "deadline_at"           TIMESTAMPTZ(3) NOT NULL,
  "status"                TEXT NOT NULL CHECK ("status" IN ('pending', 'submitted', 'included', 'completed', 'failed')),
  -- Known once the workflow has submitted the transaction.
  "tx_hash"               TEXT,
  "gas_price_gwei"        NUMERIC(38, 18),
  "gas_used"              BIGINT,
  "block_number"          BIGINT,
  "reservation_entry_id"  TEXT,
  "settlement_entry_id"   TEXT,
  "workflow_id"           TEXT NOT NULL,
  -- Set when the swap is a leg of a cross-chain swap.
  "crosschain_swap_id"    TEXT,
  "failure_code"          TEXT,
  "failure_reason"        TEXT,
  "compensation_executed" BOOLEAN NOT NULL DEFAULT false,
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"          TIMESTAMPTZ(3),
  "failed_at"             TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "defi_swaps_quote_id_key" ON "defi_swaps" ("quote_id");
CREATE INDEX "defi_swaps_user_id_environment_created_at_idx" ON "defi_swaps" ("user_id", "environment", "created_at" DESC);

-- ---------------------------------------------------------------------------------------------
-- Flash loans that succeeded (a failed one leaves nothing, by definition).
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_flash_loans" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"         TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"      TEXT NOT NULL REFERENCES "accounts" ("id"),
  "chain"           TEXT NOT NULL,
  "lending_pool_id" TEXT NOT NULL,
  "token"           TEXT NOT NULL,
  "asset_code"      TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount"          NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "fee"             NUMERIC(38, 18) NOT NULL,
  -- Each operation with the pool used and the amounts in and out.
  "operations"      JSONB NOT NULL,
  "final_amount"    NUMERIC(38, 18) NOT NULL,
  "network_fee"     NUMERIC(38, 18) NOT NULL,
  "profit"          NUMERIC(38, 18) NOT NULL CHECK ("profit" >= 0),
  "entry_id"        TEXT NOT NULL,
  "workflow_id"     TEXT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "defi_flash_loans_user_id_environment_created_at_idx" ON "defi_flash_loans" ("user_id", "environment", "created_at" DESC);

-- ---------------------------------------------------------------------------------------------
-- Cross-chain swaps: bridge from_token to the destination chain, then swap it there; when the
-- swap fails after the bridge completed, bridge it back (compensation).
--   pending -> bridging -> swapping -> completed
--   bridging -> failed (bridge refunded by its own workflow)
--   swapping -> returning -> failed (compensated: funds back on the source chain)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "defi_crosschain_swaps" (
  "id"                        TEXT PRIMARY KEY,
  "environment"               TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                   TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"                TEXT NOT NULL REFERENCES "accounts" ("id"),
  "source_chain"              TEXT NOT NULL,
  "destination_chain"         TEXT NOT NULL,
  "from_token"                TEXT NOT NULL,
  "to_token"                  TEXT NOT NULL,
  "amount"                    NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "slippage_bps"              INTEGER NOT NULL,
  "status"                    TEXT NOT NULL CHECK ("status" IN ('pending', 'bridging', 'swapping', 'returning', 'completed', 'failed')),
  "bridge_transfer_id"        TEXT,
  "bridged_amount"            NUMERIC(38, 18),
  "swap_id"                   TEXT,
  "output_amount"             NUMERIC(38, 18),
  "return_bridge_transfer_id" TEXT,
  "returned_amount"           NUMERIC(38, 18),
  "workflow_id"               TEXT NOT NULL,
  "failure_code"              TEXT,
  "failure_reason"            TEXT,
  "compensation_executed"     BOOLEAN NOT NULL DEFAULT false,
  "created_at"                TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"                TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"              TIMESTAMPTZ(3),
  "failed_at"                 TIMESTAMPTZ(3)
);
CREATE INDEX "defi_crosschain_swaps_user_id_environment_created_at_idx" ON "defi_crosschain_swaps" ("user_id", "environment", "created_at" DESC);
