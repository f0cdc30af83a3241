/**
 * Every area's GraphQL module, in the order of the REST routes (api/routes/index.ts). A new area
 * adds its module here: SDL extending Query/Mutation/Subscription and resolvers calling the domain.
 */
import type { FastifyInstance } from 'fastify';
import { bankingArea } from './banking';
import { operationsArea } from './operations';
import { ledgerArea } from './ledger';
import { iso20022Area } from './iso20022';
import { webhooksArea } from './webhooks';
import { railsArea } from './rails';
import { interledgerArea } from './interledger';
import { mobileArea } from './mobile';
import { aiArea } from './ai';
import { smsArea } from './sms';
import { partnerArea } from './partner';
import { regtechArea } from './regtech';
import { crosschainArea } from './crosschain';
import { defiArea } from './defi';
import { defiPositionsArea } from './defi-positions';
import { gcuArea } from './gcu';
import { microfinanceArea } from './microfinance';
import { openBankingArea } from './open-banking';
import type { GraphQLArea } from './types';

export const AREAS: Array<(app: FastifyInstance) => GraphQLArea> = [bankingArea, regtechArea, mobileArea, partnerArea, smsArea, aiArea, operationsArea, ledgerArea, iso20022Area, webhooksArea, railsArea, interledgerArea, crosschainArea, defiArea, defiPositionsArea, gcuArea, microfinanceArea, openBankingArea];
