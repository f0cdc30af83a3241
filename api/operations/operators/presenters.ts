/** Wire shapes of the operators area: a user, as the authentication area shows it. */
export { presentUser } from '../auth/presenters';
